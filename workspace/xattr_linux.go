//go:build linux

package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// maxXattrList bounds the attribute names and each value read from one
// file; Linux itself allows at most 64 KiB for either (XATTR_LIST_MAX,
// XATTR_SIZE_MAX), so this never refuses a file Linux made.
const maxXattrList = 64 << 10

// copyXattrs gives dst every extended attribute of src (user.*, ACLs,
// security.* labels, capabilities) with the same value. An attribute dst
// already holds with that value (a label the new file got by default) is
// left alone; one that cannot be set is an error naming it, so the
// rewrite is refused rather than losing it.
func copyXattrs(src, dst *os.File) error {
	names, err := fdXattr(src, func(fd int, buf []byte) (int, error) { return unix.Flistxattr(fd, buf) })
	if err != nil {
		if errors.Is(err, unix.ENOTSUP) {
			return nil
		}
		return fmt.Errorf("cannot list its extended attributes: %w", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(names), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		val, err := fdXattr(src, func(fd int, buf []byte) (int, error) { return unix.Fgetxattr(fd, name, buf) })
		if err != nil {
			return fmt.Errorf("cannot read its extended attribute %s: %w", name, err)
		}
		if have, err := fdXattr(dst, func(fd int, buf []byte) (int, error) { return unix.Fgetxattr(fd, name, buf) }); err == nil && bytes.Equal(have, val) {
			continue
		}
		var serr error
		if err := controlFd(dst, func(fd int) { serr = unix.Fsetxattr(fd, name, val, 0) }); err != nil {
			return err
		}
		if serr != nil {
			return fmt.Errorf("cannot keep its extended attribute %s: %w", name, serr)
		}
	}
	return nil
}

// fdXattr runs get (a list or get call) on f with a buffer of
// maxXattrList bytes and returns what it filled.
func fdXattr(f *os.File, get func(fd int, buf []byte) (int, error)) ([]byte, error) {
	buf := make([]byte, maxXattrList)
	var n int
	var gerr error
	if err := controlFd(f, func(fd int) { n, gerr = get(fd, buf) }); err != nil {
		return nil, err
	}
	if gerr != nil {
		return nil, gerr
	}
	return buf[:n], nil
}

// controlFd runs fn on f's descriptor without changing its mode (File.Fd
// would make it blocking).
func controlFd(f *os.File, fn func(fd int)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { fn(int(fd)) })
}
