//go:build !linux

package hgrep

import "errors"

// limitData would cap rg's data segment; only Linux can set another
// process's limits (prlimit), so elsewhere hgrep refuses to run rg
// unbounded.
func limitData(pid int, limit int64) error {
	return errors.New("capping ripgrep's memory needs Linux (prlimit)")
}
