package hgrep

import (
	"bytes"
	"os"
	"path/filepath"

	"hpatch-router/regfile"
)

// searchable refuses named paths rg would block on or read without end:
// anything but a regular file or a directory (a FIFO with no writer, a
// terminal, /dev/zero named directly). In directories rg itself skips such
// files. Missing paths are left to rg, which names them.
func searchable(dir string, named []string) error {
	for _, name := range named {
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().IsRegular() || fi.IsDir() {
			continue
		}
		what := (&regfile.NotRegularError{Mode: fi.Mode()}).What()
		return usagef("%s is %s, not a file or directory; hgrep searches files", name, what)
	}
	return nil
}

// ranOutOfMemory reports whether rg's diagnostics say it died for want of
// memory: Rust's allocator prints "memory allocation of N bytes failed"
// and aborts.
func ranOutOfMemory(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("memory allocation of"))
}
