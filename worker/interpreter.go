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

	"hpatch-router/shebang"
)

// BodyPath is where every non-shell interpreter reads the script body: the
// sealed memfd the helper handed over (snapshot.TakeBody), passed as fd 3.
// No script file is written and the body is copied nowhere.
const BodyPath = "/dev/fd/3"

// runInterpreter runs selector (PATH lookup unless it names a path) with
// the middle fields and BodyPath (Python: a -c loader reading fd 3), the
// body's sealed memfd on fd 3, the inherited stdin, cwd and environment,
// under the run's output budget and process tracking.
func (r *run) runInterpreter(selector string, middle []string, body *os.File) int {
	return r.runProgram(selector, interpreterArgs(selector, middle), r.stdin, body)
}

// runStdin runs fields (the program first, looked up as an interpreter
// selector is) with the body's memfd as its standard input and no script
// operand: the stdin form of a declared tool (shebang.StdinMarker).
func (r *run) runStdin(fields []string, body *os.File) int {
	if len(fields) == 0 {
		body.Close()
		r.note("the stdin form names no program; write shell '" + shebang.StdinMarker + "' PROGRAM [ARGS…] INPUT")
		return ExitUsage
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		body.Close()
		r.note("cannot read the input: " + err.Error())
		return ExitCannotRun
	}
	return r.runProgram(fields[0], fields, body, nil)
}

// runProgram starts selector with args, stdin and, as fd 3, extra (nil:
// none); it closes stdin unless it is the run's own, and extra.
func (r *run) runProgram(selector string, args []string, stdin, extra *os.File) int {
	var files []*os.File
	if extra != nil {
		files = []*os.File{extra}
	}
	own := func() {
		if extra != nil {
			extra.Close() // the child has its own copy
		}
		if stdin != r.stdin {
			stdin.Close()
		}
	}
	path, code, problem := lookInterpreter(selector)
	if problem != "" {
		own()
		r.note(problem)
		return code
	}
	stdout, err := r.stdout.file()
	if err != nil {
		r.note("cannot set up the output streams: " + err.Error())
		return ExitCannotRun
	}
	stderr, err := r.stderr.file()
	if err != nil {
		r.note("cannot set up the output streams: " + err.Error())
		return ExitCannotRun
	}
	cmd := &exec.Cmd{Path: path, Args: args, Env: os.Environ(), Stdin: stdin,
		Stdout: stdout, Stderr: stderr, ExtraFiles: files}
	c, err := r.procs.start(cmd)
	own()
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

// lookInterpreter finds selector as exec.LookPath does. When it cannot
// run, it returns the exit status and one line that says why: a bare name
// was looked up in PATH, a path is taken as written, so only a bare name
// is "not found in PATH".
func lookInterpreter(selector string) (path string, code int, problem string) {
	path, err := exec.LookPath(selector)
	if err == nil {
		return path, 0, ""
	}
	what := "interpreter " + selector
	var info fs.FileInfo
	if strings.Contains(selector, "/") {
		info, err = os.Stat(selector)
	}
	switch {
	case errors.Is(err, exec.ErrDot):
		return "", ExitCannotRun, what + " resolves to the current directory; name it by absolute path in the shebang"
	case info != nil && info.IsDir():
		return "", ExitCannotRun, what + " is a directory, not a program; name the interpreter itself in the shebang"
	case info != nil || errors.Is(err, fs.ErrPermission):
		return "", ExitCannotRun, what + " is not executable; fix its permissions or choose another in the shebang"
	case strings.Contains(selector, "/"):
		return "", ExitNotFound, what + " does not exist; fix the path in the shebang, or write the bare name to look it up"
	}
	return "", ExitNotFound, what + " was not found in PATH; install it, or name it by absolute path in the shebang"
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
