package inspect

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// stuckLanguage is a language only this test binary's outline process
// knows: it never answers, like a parser caught in a loop.
const stuckLanguage = "stuck"

// TestMain serves as the outline process when Outline starts this test
// binary as ChildArg0, as the router's main does.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == ChildArg0 {
		if os.Args[len(os.Args)-1] == stuckLanguage {
			time.Sleep(time.Minute) // long past any deadline a test sets
			os.Exit(0)
		}
		os.Exit(ChildMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
