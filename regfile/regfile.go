package regfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// OpenFlags go with every open of a file the model named, for reading or
// writing: the open never waits for a FIFO's other end and never makes a
// terminal the worker's controlling one.
const OpenFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// NotRegularError is a path that names something other than a regular
// file: a directory, a FIFO, a device, a socket, or (where names are not
// followed) a symlink.
type NotRegularError struct {
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string { return "not a regular file (" + e.What() + ")" }

// What names the file type for a notice: "a directory", "a named pipe", …
func (e *NotRegularError) What() string {
	switch t := e.Mode.Type(); {
	case t&fs.ModeSymlink != 0:
		return "a symlink"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// ErrChanged is a file replaced between the look before the open and the
// open.
var ErrChanged = errors.New("replaced while being opened; retry")

// FS is where names are opened: OS for the whole file system, or an
// adapter over an *os.Root. Stat is the look before the open; whether it
// follows a symlink is the FS's choice.
type FS interface {
	Stat(name string) (fs.FileInfo, error)
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
}

// OS opens names in the whole file system and follows symlinks.
type OS struct{}

// Stat is os.Stat.
func (OS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// OpenFile is os.OpenFile.
func (OS) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// Open opens name in fsys for reading only if it is a regular file, and
// returns it with its status as the open file shows it. Errors: fsys's
// own, *NotRegularError, or ErrChanged.
func Open(fsys FS, name string) (*os.File, fs.FileInfo, error) {
	before, err := fsys.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, &NotRegularError{before.Mode()}
	}
	f, err := fsys.OpenFile(name, os.O_RDONLY|OpenFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, nil, err
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, nil, &NotRegularError{fi.Mode()}
	case !os.SameFile(before, fi):
		f.Close()
		return nil, nil, ErrChanged
	}
	return f, fi, nil
}
