//go:build linux

package hsymbol

import (
	"testing"

	"hpatch-router/worker/internal/workspacetest"
	"hpatch-router/worker/privcmd"
)

// workspace is the shared fixture tree (see workspacetest.Copy).
func workspace(t testing.TB) string { return workspacetest.Copy(t) }

// runCmd runs fn in dir and returns stdout, stderr and the status.
func runCmd(t testing.TB, fn privcmd.Func, dir string, args ...string) (string, string, int) {
	t.Helper()
	return workspacetest.Run(t, fn, dir, args...)
}
