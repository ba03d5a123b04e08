package privcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is a path that names something other than a regular
// file: a directory, a FIFO, a device, a socket.
type NotRegularError struct {
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string { return "not a regular file (" + e.What() + ")" }

// What names the file type for a notice: "a directory", "a named pipe", …
func (e *NotRegularError) What() string {
	switch t := e.Mode.Type(); {
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

// TooLargeError is a file over the command's Input limit.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%d bytes, over the %s input limit", e.Size, Size(e.Limit))
}

// ErrChanged is a file replaced between the checks and the open.
var ErrChanged = errors.New("replaced while being opened; retry")

// OpenRegular opens path for reading only if it is a regular file, and
// returns it with its status. The path is checked before the open, so a
// device or FIFO is never opened (opening some devices has effects), and
// the open file is checked again, so a swap in between is refused. The
// open never blocks (O_NONBLOCK) and never acquires a terminal.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	before, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, &NotRegularError{before.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
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

// readChunk is how much ReadFile reads between two looks at the deadline.
const readChunk = 1 << 20

// ReadFile reads the regular file at path whole, at most limit bytes.
// What it returns is one snapshot: the first Size bytes the file had when
// it was opened, so a file that grows while it is read gives the same rows
// as before it grew (a file that shrinks gives what is left). Files that
// report size 0 but have content (procfs) are read up to limit. Errors:
// the os errors of a missing or unreadable path, *NotRegularError,
// *TooLargeError, ErrChanged, or ctx's error when its deadline passes
// between two chunks.
func ReadFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := fi.Size()
	if size > limit {
		return nil, &TooLargeError{size, limit}
	}
	if size == 0 {
		data, err := readGrowing(ctx, io.LimitReader(f, limit+1))
		if err == nil && int64(len(data)) > limit {
			return nil, &TooLargeError{int64(len(data)), limit}
		}
		return data, err
	}
	return readSnapshot(ctx, f, make([]byte, size))
}

// readSnapshot fills buf from r in chunks, looking at ctx between them; a
// short file gives what it had.
func readSnapshot(ctx context.Context, r io.Reader, buf []byte) ([]byte, error) {
	n := 0
	for n < len(buf) {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		m, err := r.Read(buf[n:min(len(buf), n+readChunk)])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf[:n], nil
}

// readGrowing reads r to its end in chunks, looking at ctx between them.
func readGrowing(ctx context.Context, r io.Reader) ([]byte, error) {
	var buf []byte
	for {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, min(readChunk, max(512, len(buf))))...)[:len(buf)]
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Cause is what went wrong with a file, without the operation and the
// absolute path an *fs.PathError puts before it ("permission denied", not
// "open /home/u/ws/f: permission denied"): messages name the path as the
// script wrote it.
func Cause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// CannotRead is the one line for a file the script named as name that
// exists but could not be opened or read: the cause, and what to check.
func CannotRead(name string, err error) string {
	return name + " cannot be read (" + Cause(err) + "); check the path and its permissions"
}
