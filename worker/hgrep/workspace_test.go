package hgrep

import (
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/worker/internal/workspacetest"
	"hpatch-router/worker/privcmd"
)

// workspace is the shared fixture tree (see workspacetest.Copy).
func workspace(t testing.TB) string { return workspacetest.Copy(t) }

// runCmd runs fn in dir and returns stdout, stderr and the status; hgrep
// needs rg on PATH.
func runCmd(t testing.TB, fn privcmd.Func, dir string, args ...string) (string, string, int) {
	t.Helper()
	testenv.NeedTool(t, "rg")
	return workspacetest.Run(t, fn, dir, args...)
}
