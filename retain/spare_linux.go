//go:build linux

package retain

import (
	"errors"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// A retained script's file is made in two steps so that the costly one is
// off the response's path. Allocating the inode is what a file create
// costs (on an ext4 that has to skip recently freed inodes, hundreds of
// µs); so after each retain in a thread the store keeps open, it allocates
// the next one ahead, as an unnamed O_TMPFILE inode in the thread's
// scripts/ (a spare). Retain then writes the script into the spare and
// links it under its artifact id: linkat fails when the name exists, so
// nothing is overwritten, and the name appears with the complete content.
// A spare has no name, so nobody sees it, and it is freed when closed or
// when the process dies. Without a spare (the first retain in a thread, a
// file system without O_TMPFILE, no /proc) Retain creates the file itself
// (createExclusive).

// sparesSupported reports whether a spare can be linked: by its
// /proc/self/fd path, as linkat without privileges requires.
func sparesSupported() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
}

// errNoSpareLink says a spare could not be linked for a reason that does
// not concern the script (no /proc, the directory is gone): create it
// the usual way, which reports what is wrong.
var errNoSpareLink = errors.New("spare not linkable")

// linkSpare writes data to sp's file and links it as name in sp's
// directory, then closes the file; the directory stays open for the next
// spare. A name that exists gives an error matching fs.ErrExist.
func linkSpare(sp *spareFile, name string, data []byte) error {
	defer sp.file.Close()
	if _, err := sp.file.Write(data); err != nil {
		return err
	}
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(sp.file.Fd())), int(sp.dir.Fd()), name, unix.AT_SYMLINK_FOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return errNoSpareLink
	}
	if err != nil {
		return &fs.PathError{Op: "link", Path: name, Err: err}
	}
	return nil
}

// openSpare allocates an unnamed file (0600) in the directory dir and
// returns it with dir.
func openSpare(dir *os.File) (*spareFile, error) {
	fd, err := unix.Openat(int(dir.Fd()), ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	return &spareFile{file: os.NewFile(uintptr(fd), "spare"), dir: dir}, nil
}

// spareUnsupported reports an error that says the file system cannot make
// unnamed files, so trying again is pointless.
func spareUnsupported(err error) bool {
	return errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL)
}
