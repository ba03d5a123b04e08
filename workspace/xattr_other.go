//go:build !linux

package workspace

import "os"

// copyXattrs is Linux's: the worker that writes workspace files runs on
// Linux only (docs/macos.md), so elsewhere there is nothing to copy.
func copyXattrs(src, dst *os.File) error { return nil }
