package threadstate

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// journalDescriptors counts this process's open descriptors on files in
// dir, read from /proc/self/fd.
func journalDescriptors(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}

// TestReplayThreadBurstHoldsBoundedDescriptors: a burst of 1,000 new
// threads, each with a carrier journaled, holds about MaxCachedThreads
// journal descriptors at any time (an evicted thread's handle is closed at
// eviction), and Close leaves none; every thread's entry stays restorable
// from its journal. The bound allows two more: the maintainer fsyncs an
// evicted journal through a handle of its own, and a thread it is
// fsyncing is not evicted until it is done.
func TestReplayThreadBurstHoldsBoundedDescriptors(t *testing.T) {
	dir := t.TempDir()
	lim := DefaultLimits()
	lim.MaxCachedThreads = 16
	s, err := Open(dir, lim, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for i := range 1000 {
		if err := s.Put(fmt.Sprint("burst-", i), "call_1", "c", []byte(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			most = max(most, journalDescriptors(t, dir))
		}
	}
	most = max(most, journalDescriptors(t, dir))
	if most == 0 || most > lim.MaxCachedThreads+2 {
		t.Fatalf("at most %d journal descriptors open during the burst, want 1 to %d", most, lim.MaxCachedThreads+2)
	}
	t.Logf("at most %d journal descriptors open during a burst of 1,000 threads", most)
	if e, ok := s.get("burst-0", "call_1"); !ok || e.Item != `{"n":1}` {
		t.Fatalf("the first thread's entry after the burst: %+v, %v", e, ok)
	}
	s.Close()
	if n := journalDescriptors(t, dir); n != 0 {
		t.Fatalf("%d journal descriptors open after Close", n)
	}
}
