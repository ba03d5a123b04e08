package threadstate

import (
	"testing"
	"time"

	"hpatch-router/retain"
)

// The changes written are journaled next to the replay entries: a store
// opened on the same directory (a restart, or a kill -9: the lines are
// written before commit returns) hands the same history to the first
// restore of the thread and none to later ones; changes older than a
// script lives are dropped, and compaction keeps the rest.
func TestReplayJournalKeepsCommits(t *testing.T) {
	dir := t.TempDir()
	now := time.UnixMilli(1_700_000_000_000)
	lim := Limits{MaxEntriesPerThread: 8, MaxBytesPerThread: 1 << 20, MaxThreads: 10, MaxCachedThreads: 10}
	s := openStore(t, dir, lim)
	s.now = func() time.Time { return now }
	old := retain.Committed{Call: "call_old", At: now.Add(-2 * time.Hour), Retain: "call_old", Content: "#!python3\nold\n"}
	kept := []retain.Committed{
		{Call: "call_1", At: now.Add(-time.Minute), Retain: "call_1", Content: "#!python3\nprint(1)\n"},
		{Call: "call_2", At: now, Patch: "in @shell/call_1\nadd EOF \"x\"\n", Sum: "abc"},
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Commit("th", []retain.Committed{old}))
	must(s.Commit("th", kept))
	must(s.Put("th", "call_1", "carrier", []byte(`{"i":1}`)))
	check := func(s *Store, what string) {
		t.Helper()
		h, first := s.History("th")
		if !first || len(h) != len(kept) {
			t.Fatalf("%s: history %+v (first %v), want %d changes", what, h, first, len(kept))
		}
		for i := range kept {
			if !h[i].At.Equal(kept[i].At) || h[i].Call != kept[i].Call || h[i].Content != kept[i].Content || h[i].Patch != kept[i].Patch || h[i].Sum != kept[i].Sum {
				t.Fatalf("%s: change %d is %+v, want %+v", what, i, h[i], kept[i])
			}
		}
		if _, again := s.History("th"); again {
			t.Fatalf("%s: the history was handed out twice", what)
		}
	}
	check(s, "this store")
	s2 := openStore(t, dir, lim)
	s2.now = s.now
	check(s2, "reopened")
	tr := s2.locked("th")
	tr.compact = true
	tr.mu.Unlock()
	s2.compactThread("th", s2.locked("th").unlock())
	s3 := openStore(t, dir, lim)
	s3.now = s.now
	check(s3, "after compaction")
	if lines := journalLines(t, dir, "th"); len(lines) != 4 || lines[3] != "" {
		t.Fatalf("compacted journal has %d lines, want the entry and two changes, each ending in a newline:\n%q", len(lines), lines)
	}
}
