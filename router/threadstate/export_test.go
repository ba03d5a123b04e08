package threadstate

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Test hooks: what the tests of this package ask of a store beyond its
// API.

// get returns the newest entry the thread holds for callID.
func (s *Store) get(thread, callID string) (Entry, bool) {
	t := s.locked(thread)
	defer t.mu.Unlock()
	return t.get(callID)
}

// count is the number of live entries of a thread.
func (s *Store) count(thread string) int {
	t := s.locked(thread)
	defer t.mu.Unlock()
	return len(t.entries)
}

// unlock returns t unlocked (compactThread takes the lock itself).
func (t *threadState) unlock() *threadState { t.mu.Unlock(); return t }

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// openStore opens a store on dir, closed when the test ends.
func openStore(t *testing.T, dir string, lim Limits) *Store {
	t.Helper()
	s, err := Open(dir, lim, discard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// limits are the default limits with fn's changes, as the router's
// WithReplayLimits gives them (zero fields keep the defaults).
func limits(fn func(l *Limits)) Limits {
	l := DefaultLimits()
	fn(&l)
	return l
}

func journalLines(t *testing.T, dir, thread string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, journalName(thread)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(string(b), "\n")
}

// shellItem is a model's shell call item, as the upstream sends it.
func shellItem(callID string) string {
	return `{"type":"custom_tool_call","id":"ctc_1","call_id":"` + callID +
		`","name":"shell","namespace":"functions","input":"#!python3\nimport sys\nprint(sys.argv)\n","status":"completed"}`
}
