//go:build linux

package worker

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// BodyPath is where every non-shell interpreter reads the script body: an
// anonymous descriptor (memfd, or a pipe where memfd is unavailable)
// passed as fd 3. No script file is written.
const BodyPath = "/dev/fd/3"

// runInterpreter runs selector (PATH lookup unless it names a path) with
// the middle fields and BodyPath (Python: a -c loader reading fd 3), the
// body on fd 3, the inherited stdin, cwd and environment, under the run's
// output budget and process tracking.
func (r *run) runInterpreter(selector string, middle []string, body string) int {
	path, err := exec.LookPath(selector)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EACCES) {
			r.note("interpreter " + selector + " is not executable; fix its permissions or choose another in the shebang")
			return ExitCannotRun
		}
		if errors.Is(err, exec.ErrDot) {
			r.note("interpreter " + selector + " resolves to the current directory; name it by absolute path in the shebang")
			return ExitCannotRun
		}
		r.note("interpreter " + selector + " was not found in PATH; install it, or name it by absolute path in the shebang")
		return ExitNotFound
	}
	src, err := bodyDescriptor(body)
	if err != nil {
		r.note("cannot pass the script body to " + selector + ": " + err.Error())
		return ExitCannotRun
	}
	args := interpreterArgs(selector, middle)
	cmd := &exec.Cmd{Path: path, Args: args, Env: os.Environ(), Stdin: r.stdin,
		Stdout: r.stdout.W, Stderr: r.stderr.W, ExtraFiles: []*os.File{src}}
	c, err := r.procs.start(cmd)
	src.Close() // the child has its own copy
	if err != nil {
		if errors.Is(err, errStopping) {
			return 128 + int(r.sig)
		}
		r.note("cannot start interpreter " + path + ": " + err.Error())
		return ExitCannotRun
	}
	err = r.procs.wait(c, cmd)
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	r.note("waiting for " + selector + ": " + err.Error())
	return 1
}

// bodyFlags are interpreter flags that let it run a script from BodyPath:
// Node resolves the main script's real path, and /dev/fd/3 resolves to a
// memfd or pipe name that does not exist, unless it keeps the path as given.
func bodyFlags(selector string) []string {
	base := selector
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	switch base {
	case "node", "nodejs":
		return []string{"--preserve-symlinks-main"}
	}
	return nil
}

// bodyDescriptor returns a readable descriptor holding body, positioned at
// its start: a sealed memfd, or the read end of a pipe that a goroutine
// fills so a body of any size never deadlocks.
func bodyDescriptor(body string) (*os.File, error) {
	fd, err := unix.MemfdCreate("hpatch-body", unix.MFD_ALLOW_SEALING|unix.MFD_CLOEXEC)
	if err == nil {
		f := os.NewFile(uintptr(fd), "hpatch-body")
		if _, err := io.WriteString(f, body); err != nil {
			f.Close()
			return nil, err
		}
		_, _ = unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	go func() {
		io.WriteString(pw, body)
		pw.Close()
	}()
	return pr, nil
}
