package privcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"hpatch-router/regfile"
)

// TooLargeError is a file over the command's Input limit.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%d bytes, over the %s input limit", e.Size, Size(e.Limit))
}

// readChunk is how much ReadFile reads between two looks at the deadline.
const readChunk = 1 << 20

// ReadFile reads the regular file at path whole, at most limit bytes.
// What it returns is one snapshot: the first Size bytes the file had when
// it was opened, so a file that grows while it is read gives the same rows
// as before it grew (a file that shrinks gives what is left). Files that
// report size 0 but have content (procfs) are read up to limit. Errors:
// the os errors of a missing or unreadable path, *regfile.NotRegularError,
// *TooLargeError, regfile.ErrChanged, or ctx's error when its deadline passes
// between two chunks.
func ReadFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, fi, err := regfile.Open(regfile.OS{}, path)
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
