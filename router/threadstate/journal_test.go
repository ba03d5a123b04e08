package threadstate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A crash mid-write leaves a last line without its newline: load ignores
// it, and the next put starts a new line so its own entry stays readable.
func TestReplayJournalTornLastLine(t *testing.T) {
	dir := t.TempDir()
	a := Entry{callID: "call_a", carrier: carrierDigest("ca"), Item: `{"a":1}`}
	b := Entry{callID: "call_b", carrier: carrierDigest("cb"), Item: `{"b":1}`}
	torn := appendJournalLine(nil, Entry{callID: "call_c", carrier: carrierDigest("cc"), Item: `{"c":1}`})
	data := appendJournalLine(appendJournalLine(nil, a), b)
	data = append(data, torn[:len(torn)/2]...)
	if err := os.WriteFile(filepath.Join(dir, journalName("th")), data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir, DefaultLimits())
	if _, ok := s.get("th", "call_c"); ok || s.count("th") != 2 {
		t.Fatalf("torn line loaded: %d entries", s.count("th"))
	}
	if e, ok := s.get("th", "call_b"); !ok || e.Item != b.Item {
		t.Fatal("whole lines lost")
	}
	if err := s.Put("th", "call_d", "cd", []byte(`{"d":1}`)); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, dir, DefaultLimits())
	if e, ok := s2.get("th", "call_d"); !ok || e.Item != `{"d":1}` || s2.count("th") != 3 {
		t.Fatalf("entry after a torn line: %v %v, %d entries", e, ok, s2.count("th"))
	}
	// Compaction drops the torn line.
	s.flush()
	if lines := journalLines(t, dir, "th"); len(lines) != 4 || lines[3] != "" {
		t.Fatalf("compacted journal %q", lines)
	}
}

// Compaction rewrites the journal to exactly the live entries, in order,
// byte for byte as put wrote them, and a new store reads the same entries.
func TestReplayJournalCompactionKeepsLiveEntries(t *testing.T) {
	dir := t.TempDir()
	lim := Limits{MaxEntriesPerThread: 5, MaxBytesPerThread: 1 << 20, MaxThreads: 10, MaxCachedThreads: 10}
	s := openStore(t, dir, lim)
	item := func(i int) string {
		// Not valid UTF-8 every seventh item, newlines and HTML characters
		// elsewhere: all must come back byte-exact.
		if i%7 == 0 {
			return fmt.Sprintf("{\"bad\":\"\xff\xfe%d\"}", i)
		}
		return fmt.Sprintf("{\"i\":%d,\n \"s\":\"<&>\\u00e9\"}", i)
	}
	for i := range 200 {
		id := fmt.Sprint("call_", i)
		if i%3 == 0 {
			id = "call_again" // a new version each time, all kept within the bound
		}
		if err := s.Put("th", id, fmt.Sprint("carrier ", i), []byte(item(i))); err != nil {
			t.Fatal(err)
		}
	}
	s.flush()
	tr := s.locked("th")
	want := make([]Entry, len(tr.entries))
	copy(want, tr.entries)
	var wantFile []byte
	for _, e := range want {
		wantFile = appendJournalLine(wantFile, e)
	}
	tr.mu.Unlock()
	if len(want) != 5 || want[4].callID != "call_199" || want[3].callID != "call_again" || want[3].Item != item(198) ||
		want[0].callID != "call_again" || want[0].Item != item(195) {
		t.Fatalf("live entries %+v", want)
	}
	got, _ := os.ReadFile(filepath.Join(dir, journalName("th")))
	if !bytes.Equal(got, wantFile) {
		t.Fatalf("compacted journal\n%s\nwant\n%s", got, wantFile)
	}
	s2 := openStore(t, dir, lim)
	t2 := s2.locked("th")
	for _, e := range want {
		if g, ok := t2.match(e.callID, e.carrier); !ok || g.Item != e.Item || g.sent != e.sent {
			t.Fatalf("%s after compaction: %q %v, want %q", e.callID, g.Item, ok, e.Item)
		}
	}
	t2.mu.Unlock()
	if s2.count("th") != 5 {
		t.Fatalf("%d entries", s2.count("th"))
	}
	// Puts after compaction append to the new journal.
	if err := s.Put("th", "call_new", "c", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, ok := openStore(t, dir, lim).get("th", "call_new"); !ok {
		t.Fatal("put after compaction lost")
	}
}

// The byte bound drops old entries and compaction then shrinks the file.
func TestReplayJournalByteBound(t *testing.T) {
	dir := t.TempDir()
	lim := Limits{MaxEntriesPerThread: 1000, MaxBytesPerThread: 4096, MaxThreads: 10, MaxCachedThreads: 10}
	s := openStore(t, dir, lim)
	big := `{"x":"` + strings.Repeat("y", 1000) + `"}`
	for i := range 600 {
		if err := s.Put("th", fmt.Sprint("call_", i), "c", []byte(big)); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.count("th"); n != 4 {
		t.Fatalf("%d live entries, want 4", n)
	}
	s.flush()
	info, err := os.Stat(filepath.Join(dir, journalName("th")))
	if err != nil || info.Size() > 2*4096+compactSlackBytes {
		t.Fatalf("journal %v after compaction %v", info.Size(), err)
	}
	if n := len(journalLines(t, dir, "th")) - 1; n > 2*4+compactSlackLines {
		t.Fatalf("%d lines", n)
	}
}

// Concurrent puts to the same threads while the maintainer compacts and
// syncs over and over: every entry ends up in the journals.
func TestReplayJournalConcurrentCompaction(t *testing.T) {
	dir := t.TempDir()
	lim := Limits{MaxEntriesPerThread: 100000, MaxBytesPerThread: 1 << 30, MaxThreads: 100, MaxCachedThreads: 2}
	s := openStore(t, dir, lim)
	const goroutines, puts = 6, 150
	var wg sync.WaitGroup
	stop, flusherDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(flusherDone)
		for {
			select {
			case <-stop:
				return
			default:
				s.flush()
			}
		}
	}()
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range puts {
				th := fmt.Sprint("t", (g+i)%3)
				// The same call twice: dead lines for compaction.
				for range 2 {
					if err := s.Put(th, fmt.Sprint("c", g, "_", i), "x", []byte(`{}`)); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-flusherDone
	s2 := openStore(t, dir, lim)
	n := 0
	for th := range 3 {
		n += s2.count(fmt.Sprint("t", th))
	}
	if n != goroutines*puts {
		t.Fatalf("%d entries in the journals, want %d", n, goroutines*puts)
	}
}

// Evicting a thread from the cache closes its journal; a later put opens
// it again and appends.
func TestReplayJournalCacheEviction(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, Limits{MaxEntriesPerThread: 100, MaxBytesPerThread: 1 << 20, MaxThreads: 100, MaxCachedThreads: 1})
	for i := range 4 {
		for _, th := range []string{"a", "b"} {
			if err := s.Put(th, fmt.Sprint("c", i), "x", []byte(`{}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.flush()
	s.mu.Lock()
	cached, retired := len(s.threads), len(s.retired)
	s.mu.Unlock()
	if cached != 1 || retired != 0 {
		t.Fatalf("%d threads cached, %d handles unclosed", cached, retired)
	}
	for _, th := range []string{"a", "b"} {
		if n := len(journalLines(t, dir, th)) - 1; n != 4 {
			t.Fatalf("thread %s: %d lines", th, n)
		}
	}
}
