package threadstate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

func TestReplayBounds(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, limits(func(l *Limits) { l.MaxEntriesPerThread, l.MaxCachedThreads = 3, 1 }))
	for i := range 5 {
		if err := s.Put("a", fmt.Sprint("call_", i), "c", []byte(`{"i":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := s.get("a", "call_1"); ok {
		t.Fatal("oldest entry kept past MaxEntriesPerThread")
	}
	if _, ok := s.get("a", "call_4"); !ok {
		t.Fatal("newest entry lost")
	}
	for _, th := range []string{"b", "c"} {
		if err := s.Put(th, "x", "c", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	s.flush()
	if len(s.threads) > 1 {
		t.Fatalf("%d threads cached", len(s.threads))
	}
	// Byte bound.
	s2 := openStore(t, "", limits(func(l *Limits) { l.MaxBytesPerThread = 10 }))
	s2.Put("t", "a", "c", []byte(`{"aaaaaa":1}`))
	s2.Put("t", "b", "c", []byte(`{"b":1}`))
	if _, ok := s2.get("t", "a"); ok {
		t.Fatal("byte bound not enforced")
	}
}

// A thread id that is not one (ident.Thread) names no journal: Put
// refuses it and creates no file.
func TestReplayRefusesUnsafeThreadIDs(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, DefaultLimits())
	unsafe := []string{"../x", "a/b", ".", "..", "a b", "snapshot-0123456789abcdef0123456789abcdef", strings.Repeat("t", 129)}
	for _, th := range unsafe {
		if err := s.Put(th, "c", "x", []byte(`{}`)); err == nil {
			t.Fatalf("thread %q accepted", th)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files created: %v", ents)
	}
}

// Concurrent puts over more threads than the cache holds all reach disk.
func TestReplayConcurrentDurable(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, limits(func(l *Limits) { l.MaxCachedThreads = 2 }), discard())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				th := fmt.Sprint("t", (g+i)%5)
				if err := s.Put(th, fmt.Sprint("c", g, "_", i), "x", []byte(`{}`)); err != nil {
					t.Error(err)
				}
				s.get(th, "c0_0")
			}
		}()
	}
	wg.Wait()
	s.Close()
	s2 := openStore(t, dir, DefaultLimits())
	n := 0
	for th := range 5 {
		n += s2.count(fmt.Sprint("t", th))
	}
	if n != 8*20 {
		t.Fatalf("%d entries on disk, want %d", n, 8*20)
	}
}

// TestReplayPutKeepsNoCallerString: the call id the rewrite passes is a
// substring of gjson's copy of the whole model item; the entry keeps its
// own copy, so the item is not held twice for as long as the entry lives.
func TestReplayPutKeepsNoCallerString(t *testing.T) {
	s := openStore(t, "", DefaultLimits())
	item := `{"type":"custom_tool_call","call_id":"call_1","name":"shell","input":"ls"}`
	i := strings.Index(item, "call_1")
	callID := item[i : i+len("call_1")]
	if err := s.Put("thread-1", callID, "carrier", []byte(item)); err != nil {
		t.Fatal(err)
	}
	s.View("thread-1", func(v View) {
		e, ok := v.Get("call_1")
		if !ok {
			t.Fatal("entry missing")
		}
		start := uintptr(unsafe.Pointer(unsafe.StringData(item)))
		if p := uintptr(unsafe.Pointer(unsafe.StringData(e.callID))); p >= start && p < start+uintptr(len(item)) {
			t.Error("the entry's call id points into the caller's item string")
		}
	})
}

// The call id NoteLost remembers is a copy: the router passes one read
// in place from a request body, which may be as large as
// --max-request-body and which a remembered substring would keep alive
// with the thread. It is news once.
func TestNoteLostKeepsNoCallerString(t *testing.T) {
	s := openStore(t, "", DefaultLimits())
	b := []byte(`{"call_id":"call_lost"}`)
	id := unsafe.String(&b[12], len("call_lost"))
	var news []bool
	for range 2 {
		s.View("thread-2", func(v View) { news = append(news, v.NoteLost(id)) })
	}
	if !slices.Equal(news, []bool{true, false}) {
		t.Fatalf("NoteLost said %v, want news once", news)
	}
	tr := s.locked("thread-2")
	defer tr.mu.Unlock()
	if len(tr.lost) != 1 {
		t.Fatalf("lost %v, want call_lost", tr.lost)
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for id := range tr.lost {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(id))); p >= start && p < start+uintptr(len(b)) {
			t.Fatalf("the lost call id %q points into the request body", id)
		}
	}
}

// Journals are kept by age and total size, not by count: one not written
// for MaxAge goes, then the least recently written ones while all of them
// hold more than MaxTotalBytes; the rest stay, however many.
func TestReplayJournalsKeptByAgeAndBytes(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, limits(func(l *Limits) { l.MaxCachedThreads = 1 }))
	now := time.Now()
	threads := []string{"a", "b", "c", "d"}
	var sizes []int64
	for i, th := range threads {
		if err := s.Put(th, "call_1", "carrier", []byte(`{"t":"`+th+`"}`)); err != nil {
			t.Fatal(err)
		}
		s.flush()
		p := filepath.Join(dir, journalName(th))
		// a is 91 days old, then b, c, d an hour apart.
		mod := now.Add(-time.Duration(len(threads)-i) * time.Hour)
		if th == "a" {
			mod = now.Add(-91 * 24 * time.Hour)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
	}
	kept := func() []string {
		var out []string
		for _, th := range threads {
			if _, err := os.Stat(filepath.Join(dir, journalName(th))); err == nil {
				out = append(out, th)
			}
		}
		return out
	}
	s.evictFiles()
	if got := kept(); !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("kept %v after the age bound, want b c d", got)
	}
	s.lim.MaxTotalBytes = sizes[2] + sizes[3]
	s.evictFiles()
	if got := kept(); !slices.Equal(got, []string{"c", "d"}) {
		t.Fatalf("kept %v after the byte bound, want c d", got)
	}
	if _, ok := s.get("b", "call_1"); ok {
		t.Fatal("a removed journal's entries are still served")
	}
}

// An evicted thread's journal handle is closed at eviction, not a
// maintenance pass later, so a burst of new threads holds at most the
// cached threads' descriptors; the maintainer still fsyncs it by name.
func TestReplayEvictionClosesTheJournal(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, Limits{MaxEntriesPerThread: 10, MaxBytesPerThread: 1 << 20, MaxCachedThreads: 1})
	if err := s.Put("a", "call_1", "c", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	a := s.locked("a")
	f := a.f
	a.mu.Unlock()
	if f == nil {
		t.Fatal("no journal handle after a put")
	}
	if err := s.Put("b", "call_1", "c", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if !a.closed || a.f != nil {
		t.Fatal("thread a was not evicted with its handle")
	}
	if _, err := f.Stat(); err == nil {
		t.Fatal("the evicted thread's journal handle is still open")
	}
	s.mu.Lock()
	retired := slices.Clone(s.retired)
	s.mu.Unlock()
	if !slices.Equal(retired, []string{journalName("a")}) {
		t.Fatalf("journals left to fsync %v, want a's", retired)
	}
}
