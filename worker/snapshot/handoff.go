//go:build linux

package snapshot

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The body handoff from the helper to the worker: the helper decodes the
// body into a sealed memfd and execs the worker with the body's argv slot
// replaced by BodyArg(fd) ("/dev/fd/N", N the inherited descriptor), so
// the body is never in the worker's (or any descendant's)
// /proc/<pid>/cmdline. The worker reads a Bash/sh body from it and gives
// other interpreters the same descriptor as their /dev/fd/3 (no copy, no
// file). There is no other way in: a worker argv that does not end with
// BodyArg, or a descriptor that is not a sealed memfd, is refused.
//
// The descriptor keeps the number the kernel gave it: moving it to a
// fixed number could close one the Go runtime holds (its poller, when a
// standard stream is non-blocking).
const (
	// MaxBody bounds what the worker reads from the descriptor: a body
	// came from one argv string, at most 128 KiB.
	MaxBody = 1 << 20

	bodyArgPrefix = "/dev/fd/"
	bodySeals     = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
)

// BodyArg is the worker's last argv value for a body on descriptor fd.
func BodyArg(fd int) string { return bodyArgPrefix + strconv.Itoa(fd) }

// ParseBodyArg returns the descriptor a BodyArg names; ok is false for
// anything else (a body itself, a standard stream).
func ParseBodyArg(arg string) (fd int, ok bool) {
	n, found := strings.CutPrefix(arg, bodyArgPrefix)
	if !found || n == "" || n[0] == '0' || len(n) > 9 {
		return 0, false
	}
	// Digits only: strconv.Atoi also takes a sign, and "/dev/fd/+7" is
	// not what BodyArg writes.
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return 0, false
		}
		fd = fd*10 + int(n[i]-'0')
	}
	if fd < 3 {
		return 0, false
	}
	return fd, true
}

// HandOver writes body into a new memfd, seals it against any change, and
// returns its descriptor, open across exec (the helper starts no other
// process, so close-on-exec would only cost a call to clear it) with its
// offset at the start (written with pwrite, nothing to rewind).
func HandOver(body string) (int, error) {
	fd, err := unix.MemfdCreate("hpatch-body", unix.MFD_ALLOW_SEALING)
	if err != nil {
		return -1, errors.New("cannot create the body descriptor (memfd_create: " + err.Error() + ")")
	}
	fail := func(what string, err error) (int, error) {
		unix.Close(fd)
		return -1, errors.New("cannot " + what + " the body descriptor: " + err.Error())
	}
	if err := writeAll(fd, body); err != nil {
		return fail("write", err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, bodySeals); err != nil {
		return fail("seal", err)
	}
	return fd, nil
}

// writeAll writes s at the start of fd, leaving its offset there.
func writeAll(fd int, s string) error {
	b := []byte(s)
	for off := 0; off < len(b); {
		n, err := unix.Pwrite(fd, b[off:], int64(off))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		off += n
	}
	return nil
}

// TakeBody is the worker's side: arg must be a BodyArg whose descriptor is
// a memfd sealed as HandOver seals it. It marks the descriptor
// close-on-exec (commands the script runs must not inherit it; an
// interpreter gets it explicitly) and returns it.
func TakeBody(arg string) (*os.File, error) {
	fd, ok := ParseBodyArg(arg)
	if !ok {
		return nil, refuse(ExitCannotRun, "the worker takes the script body only from the shell helper (its last argument is not /dev/fd/N); run commands through the installed shell helper, or reinstall it (make install) if it is older than the router")
	}
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil || seals&bodySeals != bodySeals {
		return nil, refuse(ExitCannotRun, "the script body was not handed over by the shell helper ("+arg+" is not a sealed memfd); run commands through the installed shell helper")
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), arg), nil
}

// ReadBody reads the whole body from a descriptor TakeBody returned, from
// its start, bounded by MaxBody.
func ReadBody(f *os.File) (string, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return "", err
	}
	if st.Size > MaxBody {
		return "", errors.New("the script body is larger than any shell call can send")
	}
	buf := make([]byte, st.Size)
	if _, err := f.ReadAt(buf, 0); err != nil && err != io.EOF {
		return "", err
	}
	return string(buf), nil
}
