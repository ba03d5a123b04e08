//go:build linux

package hgrep

import "golang.org/x/sys/unix"

// limitData caps process pid's data segment (RLIMIT_DATA: heap and
// private writable mappings; files rg maps read-only do not count).
func limitData(pid int, limit int64) error {
	lim := unix.Rlimit{Cur: uint64(limit), Max: uint64(limit)}
	return unix.Prlimit(pid, unix.RLIMIT_DATA, &lim, nil)
}
