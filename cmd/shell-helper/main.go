//go:build linux

package main

import (
	"os"
	"syscall"

	"hpatch-router/shebang/oneline"
	"hpatch-router/worker/snapshot"
)

func main() {
	os.Exit(run())
}

// run returns only on refusal; on success the process is replaced by the
// worker: `shell FIELDS… /dev/fd/N`, the body on descriptor N.
func run() int {
	if code, done := infoRequest(os.Args[1:]); done {
		return code
	}
	fields, body, err := oneline.ParseArgs(os.Args[1:])
	if err != nil {
		return fail(&snapshot.Refusal{Code: exitUsage, Msg: err.Error()})
	}
	uid := os.Getuid()
	root, err := snapshot.Root(os.Getenv, uid)
	if err != nil {
		return fail(err)
	}
	t, err := snapshot.Locate(root, os.Getenv(snapshot.ThreadEnv), uid)
	if err != nil {
		return fail(err)
	}
	fd, err := snapshot.OpenLauncher(t.Manifest, uid)
	if err != nil {
		return fail(err)
	}
	bodyFD, err := snapshot.HandOver(body)
	if err != nil {
		return fail(&snapshot.Refusal{Code: snapshot.ExitCannotRun, Msg: err.Error()})
	}
	argv := append(append(make([]string, 0, len(fields)+2), "shell"), fields...)
	argv = append(argv, snapshot.BodyArg(bodyFD))
	err = syscall.Exec(snapshot.ExecPath(fd), argv, os.Environ())
	return fail(&snapshot.Refusal{Code: snapshot.ExitCannotRun,
		Msg: "cannot execute launcher " + t.Manifest.Exe + " through " + snapshot.ExecPath(fd) + " (is /proc mounted?): " + err.Error() + "; reinstall hpatch-router"})
}

// exitUsage: the command line is not `shell [-e] INTERPRETER [OPTIONS…]
// BODY` (the router writes it, so this is a hand-made call).
const exitUsage = 2

func fail(err error) int {
	code := snapshot.ExitCannotRun
	if r, ok := err.(*snapshot.Refusal); ok {
		code = r.Code
	}
	os.Stderr.WriteString("shell: " + err.Error() + "\n")
	return code
}
