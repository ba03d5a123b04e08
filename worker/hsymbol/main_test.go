//go:build linux

package hsymbol

import (
	"os"
	"path/filepath"
	"testing"

	"hpatch-router/worker/inspect"
)

// TestMain serves as inspect's outline process when def expansion starts
// this test binary as inspect.ChildArg0, as the router's main does.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == inspect.ChildArg0 {
		os.Exit(inspect.ChildMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
