//go:build linux

package main

import (
	"os"
	"syscall"

	"hpatch-router/worker/snapshot"
)

func main() {
	os.Exit(run())
}

// run returns only on refusal; on success the process is replaced.
func run() int {
	root := snapshot.Root(os.Getenv)
	t, err := snapshot.Locate(root, os.Getenv(snapshot.ThreadEnv), os.Getuid())
	if err != nil {
		return fail(err)
	}
	err = syscall.Exec(t.Manifest.Exe, os.Args, os.Environ())
	return fail(&snapshot.Refusal{Code: snapshot.ExitCannotRun,
		Msg: "cannot execute launcher " + t.Manifest.Exe + ": " + err.Error() + "; reinstall hpatch-router"})
}

func fail(err error) int {
	code := snapshot.ExitCannotRun
	if r, ok := err.(*snapshot.Refusal); ok {
		code = r.Code
	}
	os.Stderr.WriteString("shell: " + err.Error() + "\n")
	return code
}
