//go:build linux

package retain

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openUnnamedFile opens a new unnamed regular file (0600) for writing in
// the directory dirfd (O_TMPFILE): it has no name until linkUnnamed gives
// it one.
func openUnnamedFile(dirfd int) (int, error) {
	return unix.Openat(dirfd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
}

// unnamedRefused reports whether err, from opening or linking an unnamed
// file, means this file system or kernel has no unnamed files rather than
// that the operation failed: EOPNOTSUPP (a file system without O_TMPFILE;
// errors.ErrUnsupported matches it, ENOTSUP and ENOSYS), EISDIR (a kernel
// older than O_TMPFILE, which reads it as O_DIRECTORY), EINVAL, and ENOENT
// from the link (no /proc to name the descriptor by).
func unnamedRefused(err error) bool {
	for _, e := range []error{errors.ErrUnsupported, unix.EISDIR, unix.EINVAL, unix.ENOENT} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// linkUnnamed writes data to a new unnamed file in dir and links it into
// dir as name, which must be a single component: the content is complete
// before the name appears, and an existing name is never replaced (the
// link fails with EEXIST). It returns the file's identity, taken from the
// descriptor before the link, so it is the file written whatever the name
// holds later. A refusal (unnamedRefused) leaves nothing behind: the
// unnamed file is gone when its descriptor closes.
func linkUnnamed(dir *os.File, calls *unnamedCalls, name string, data []byte) (fileID, error) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return fileID{}, err
	}
	var id fileID
	var linkErr error
	err = rc.Control(func(dirfd uintptr) { id, linkErr = linkUnnamedAt(int(dirfd), calls, name, data) })
	if err == nil {
		err = linkErr
	}
	return id, err
}

func linkUnnamedAt(dirfd int, calls *unnamedCalls, name string, data []byte) (fileID, error) {
	fd, err := calls.open(dirfd)
	if err != nil {
		return fileID{}, unnamedError("open an unnamed file", err)
	}
	defer unix.Close(fd)
	if err := writeAll(fd, data); err != nil {
		return fileID{}, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fileID{}, err
	}
	if err := linkIn(fd, dirfd, name, calls); err != nil {
		return fileID{}, unnamedError("link", err)
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

// linkIn links the unnamed file fd into dirfd as name: by the descriptor
// itself (linkByDescriptor), or through /proc/self/fd/N with
// AT_SYMLINK_FOLLOW, which any process may use for its own descriptors,
// once the kernel refused the first way. A refusal is ENOENT, which a
// removed directory also gives, so it is remembered only when the /proc
// way then works.
func linkIn(fd, dirfd int, name string, calls *unnamedCalls) error {
	if !calls.noLinkFD {
		err := calls.linkFD(fd, dirfd, name)
		if !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), dirfd, name, unix.AT_SYMLINK_FOLLOW)
	if err == nil {
		calls.noLinkFD = true
	}
	return err
}

// linkByDescriptor links the unnamed file fd into dirfd as name by the
// descriptor (AT_EMPTY_PATH), one path lookup fewer than through /proc.
// Linux allows it since 6.10 for a file the caller opened itself, and
// before only with CAP_DAC_READ_SEARCH: without, it fails with ENOENT.
func linkByDescriptor(fd, dirfd int, name string) error {
	return unix.Linkat(fd, "", dirfd, name, unix.AT_EMPTY_PATH)
}

// unnamedError marks a refusal (unnamedRefused) as errNoUnnamed and
// returns any other error as it is.
func unnamedError(op string, err error) error {
	if unnamedRefused(err) {
		return &noUnnamedError{op: op, err: err}
	}
	return err
}

// writeAll writes all of data to fd.
func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}
