package threadstate

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a log sink tests read while the maintainer writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) count(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Count(b.b.String(), s)
}

func loggedStore(t *testing.T, dir string) (*Store, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	s, err := Open(dir, DefaultLimits(), slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, logs
}

// openJournals counts the journal handles the store holds.
func (s *Store) openJournals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.retired)
	for _, t := range s.threads {
		t.mu.Lock()
		if t.f != nil {
			n++
		}
		t.mu.Unlock()
	}
	return n
}

// TestReplayIdleJournalsAreClosed: after a pass that fsyncs them and one
// more, threads not written since hold no journal handle; a later put
// reopens the journal and appends to it.
func TestReplayIdleJournalsAreClosed(t *testing.T) {
	dir := t.TempDir()
	s, _ := loggedStore(t, dir)
	item := shellItem("call_1")
	for i := range 50 {
		if err := s.Put(fmt.Sprint("idle-", i), "call_1", "C1", []byte(item)); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.openJournals(); n != 50 {
		t.Fatalf("%d journals open after 50 puts", n)
	}
	s.flush() // fsyncs
	s.flush() // closes what was not written since
	if n := s.openJournals(); n != 0 {
		t.Fatalf("%d journals still open on idle threads", n)
	}
	if err := s.Put("idle-7", "call_2", "C2", []byte(item)); err != nil {
		t.Fatal(err)
	}
	if lines := journalLines(t, dir, "idle-7"); len(lines) != 3 || lines[2] != "" {
		t.Fatalf("journal after reopening: %q", lines)
	}
}

// TestReplayJournalThatCanNeverWorkIsNotRetried: a journal name the file
// system cannot hold (a 300-byte thread id: ENAMETOOLONG) is given up at
// once; a journal that fails for another reason (here its name is a
// directory) is retried by at most maxJournalFails passes. Either way the
// thread keeps its entries in memory, further passes leave it alone and
// no temporary file is left behind.
func TestReplayJournalThatCanNeverWorkIsNotRetried(t *testing.T) {
	item := []byte(shellItem("call_1"))
	for _, c := range []struct {
		name, thread string
		prepare      func(dir string)
		retries      int
	}{
		{"name too long", strings.Repeat("L", 300), func(string) {}, 0},
		{"journal path is a directory", "dir-thread", func(dir string) {
			os.Mkdir(filepath.Join(dir, journalName("dir-thread")), 0o700)
		}, maxJournalFails - 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.prepare(dir)
			s, logs := loggedStore(t, dir)
			// Straight to the journal, whatever the thread id rules say.
			th := s.locked(c.thread)
			th.add(Entry{callID: "call_1", carrier: carrierDigest("C1"), Item: string(item)}, s.lim)
			_ = s.appendLocked(c.thread, th, appendJournalLine(nil, th.entries[0]))
			th.mu.Unlock()
			for range 10 {
				s.flush()
			}
			if got := logs.count("will retry"); got != c.retries {
				t.Errorf("%d retries logged, want %d:\n%s", got, c.retries, logs.b.String())
			}
			if got := logs.count("giving up on a replay journal"); got != 1 {
				t.Errorf("gave up %d times, want once", got)
			}
			if e, ok := s.get(c.thread, "call_1"); !ok || e.Item != string(item) {
				t.Fatal("the entry was lost from memory")
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), tempPrefix) {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}
