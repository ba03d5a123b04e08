//go:build !linux

package privcmd

import (
	"os/exec"

	"hpatch-router/worker/snapshot"
)

// Start refuses off Linux: a private command's child must die with the
// worker, and the parent-death signal that ensures it is Linux's (see
// snapshot.ErrNeedsLinux).
func Start(*exec.Cmd) error { return snapshot.ErrNeedsLinux }
