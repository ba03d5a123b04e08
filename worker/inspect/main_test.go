package inspect

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// stuckLanguage and crashLanguage are languages only this test binary's
// outline process knows: one never answers, like a parser caught in a
// loop; the other dies of a fault, like a parser with a bug.
const (
	stuckLanguage = "stuck"
	crashLanguage = "crash"
)

// TestMain serves as the outline process when Outline starts this test
// binary as ChildArg0, as the router's main does.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == ChildArg0 {
		switch os.Args[len(os.Args)-1] {
		case stuckLanguage:
			time.Sleep(time.Minute) // long past any deadline a test sets
			os.Exit(0)
		case crashLanguage:
			var entries []Entry
			_ = entries[len(os.Args)] // index out of range: the process dies with a panic
		}
		os.Exit(ChildMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
