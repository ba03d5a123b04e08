package privcmd

import (
	"os/exec"
	"runtime"
	"syscall"
)

// Start starts a private command's child process (ripgrep, a language
// server, the outline process) so that it dies with the worker: a worker
// killed without cleaning up (SIGKILL) would otherwise leave it running,
// reparented, holding memory and files. Pdeathsig follows the thread that
// forked, so that thread is pinned for the start.
func Start(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Start()
}
