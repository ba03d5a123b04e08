package inspect

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain serves as the outline process when Outline starts this test
// binary as ChildArg0, as the router's main does.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == ChildArg0 {
		os.Exit(ChildMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
