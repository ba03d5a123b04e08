package router

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"hpatch-router/retain"
)

// ReplayLimits bound the replay store. When a thread holds more than
// MaxEntriesPerThread entries or MaxBytesPerThread bytes of original items,
// its oldest entries are dropped; when the state directory holds more than
// MaxThreads thread files, the least recently written file is removed.
// MaxCachedThreads bounds the threads kept in memory (files stay on disk).
type ReplayLimits struct {
	MaxEntriesPerThread int
	MaxBytesPerThread   int
	MaxThreads          int
	MaxCachedThreads    int
}

// DefaultReplayLimits: 4096 entries or 16 MiB per thread, 1024 thread
// files, 128 threads cached in memory.
func DefaultReplayLimits() ReplayLimits {
	return ReplayLimits{
		MaxEntriesPerThread: 4096,
		MaxBytesPerThread:   16 << 20,
		MaxThreads:          1024,
		MaxCachedThreads:    128,
	}
}

// replayEntry maps one carrier the router emitted back to the model's
// original call item.
type replayEntry struct {
	CallID string `json:"call_id"`
	// Carrier is the hex SHA-256 of the carrier item's input string.
	Carrier string `json:"carrier_sha256"`
	// Item is the model's original item, byte for byte as the upstream
	// sent it in output_item.done (kept as a string so no encoder can
	// touch its bytes).
	Item string `json:"item"`
}

type replayFile struct {
	Version int           `json:"version"`
	Thread  string        `json:"thread"`
	Entries []replayEntry `json:"entries"`
}

// threadReplay is the in-memory copy of one thread's entries, oldest first.
type threadReplay struct {
	mu      sync.Mutex
	entries []replayEntry
	bytes   int
	version uint64 // bumped by every put
	onDisk  bool   // its file exists (or existed when loaded)

	// Guarded by replayStore.mu.
	used    uint64 // store clock at last use, for cache eviction
	unsaved bool   // changed since the writer last saved it
}

// replayStore keeps replay entries per thread: in memory, and when dir is
// set also durably, one file per thread written atomically (temporary file,
// fsync, rename) with mode 0600 in a 0700 directory opened as an os.Root.
//
// Files are written behind the stream by one writer goroutine, so a
// carrier never waits for the disk: put updates memory (which later
// requests read first) and wakes the writer, which saves every changed
// thread, coalescing bursts. Close saves what is left. Threads with unsaved
// changes are never dropped from memory.
type replayStore struct {
	root    *os.Root // nil: memory only
	lim     ReplayLimits
	log     *slog.Logger
	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	closeMu sync.Once

	mu      sync.Mutex
	threads map[string]*threadReplay
	clock   uint64
}

const replayFileSuffix = ".replay.json"

func newReplayStore(dir string, lim ReplayLimits, log *slog.Logger) (*replayStore, error) {
	s := &replayStore{lim: lim, log: log, threads: map[string]*threadReplay{}}
	if dir == "" {
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("replay state dir: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("replay state dir: %w", err)
	}
	s.root = root
	s.wake = make(chan struct{}, 1)
	s.stop = make(chan struct{})
	s.stopped = make(chan struct{})
	go s.writer()
	return s, nil
}

// Close saves every unsaved thread and releases the state directory.
func (s *replayStore) Close() error {
	if s.root == nil {
		return nil
	}
	var err error
	s.closeMu.Do(func() {
		close(s.stop)
		<-s.stopped
		err = s.root.Close()
	})
	return err
}

// replayWriteDelay lets carriers coalesce into at most about one write per
// thread and second; later requests read memory, so nothing waits for it.
// A crash (not a shutdown, which saves everything) can lose the carriers
// of the last second: their echoes then reach the model unrestored.
const replayWriteDelay = time.Second

// writer saves changed threads until Close, then once more.
func (s *replayStore) writer() {
	defer close(s.stopped)
	delay := time.NewTimer(replayWriteDelay)
	delay.Stop()
	for {
		select {
		case <-s.wake:
			delay.Reset(replayWriteDelay)
			select {
			case <-delay.C:
			case <-s.stop:
				delay.Stop()
				s.saveAll()
				return
			}
			s.saveAll()
		case <-s.stop:
			s.saveAll()
			return
		}
	}
}

// saveAll writes every thread with unsaved changes.
func (s *replayStore) saveAll() {
	s.mu.Lock()
	var ids []string
	var ts []*threadReplay
	for id, t := range s.threads {
		if t.unsaved {
			ids, ts = append(ids, id), append(ts, t)
		}
	}
	s.mu.Unlock()
	for i, t := range ts {
		t.mu.Lock()
		entries := slices.Clone(t.entries)
		v, fresh := t.version, !t.onDisk
		t.mu.Unlock()
		if fresh {
			s.evictFiles(ids[i])
		}
		err := s.write(ids[i], entries)
		if err != nil {
			s.log.Error("cannot save replay entries; they stay in memory", "err", err)
		}
		s.mu.Lock()
		t.mu.Lock()
		if err == nil {
			t.onDisk = true
			if t.version == v {
				t.unsaved = false
			}
		}
		t.mu.Unlock()
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.evictCacheLocked("")
	s.mu.Unlock()
}

func carrierDigest(input string) string {
	sum := sha256.Sum256([]byte(input))
	return hex.EncodeToString(sum[:])
}

// thread returns the thread's entries, loading its file on first use. It
// never creates anything.
func (s *replayStore) thread(id string) *threadReplay {
	s.mu.Lock()
	if t, ok := s.threads[id]; ok {
		s.clock++
		t.used = s.clock
		s.mu.Unlock()
		return t
	}
	s.mu.Unlock()
	loaded := s.load(id) // outside the lock: other threads go on meanwhile
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock++
	if t, ok := s.threads[id]; ok { // loaded concurrently: keep the first
		t.used = s.clock
		return t
	}
	loaded.used = s.clock
	s.threads[id] = loaded
	s.evictCacheLocked(id)
	return loaded
}

// load reads a thread's file; a missing or unreadable file gives an empty
// thread (a bad file is replaced by the next save).
func (s *replayStore) load(id string) *threadReplay {
	t := &threadReplay{}
	if s.root == nil {
		return t
	}
	b, err := s.root.ReadFile(id + replayFileSuffix)
	var f replayFile
	switch {
	case err == nil && json.Unmarshal(b, &f) == nil && f.Thread == id:
		t.entries, t.onDisk = f.Entries, true
		for _, e := range f.Entries {
			t.bytes += len(e.Item)
		}
	case err == nil:
		t.onDisk = true
		s.log.Warn("replay file unreadable; starting the thread afresh", "file", id+replayFileSuffix)
	case !errors.Is(err, fs.ErrNotExist):
		s.log.Warn("replay file unreadable; starting the thread afresh", "err", err)
	}
	return t
}

// evictCacheLocked drops the least recently used threads from memory. In
// memory-only mode that forgets them, so the cache bound is MaxThreads.
func (s *replayStore) evictCacheLocked(keep string) {
	max := s.lim.MaxCachedThreads
	if s.root == nil {
		max = s.lim.MaxThreads
	}
	for len(s.threads) > max {
		var oldest string
		var at uint64
		for id, t := range s.threads {
			if id != keep && !t.unsaved && (oldest == "" || t.used < at) {
				oldest, at = id, t.used
			}
		}
		if oldest == "" {
			return // everything unsaved: the writer will catch up
		}
		delete(s.threads, oldest)
	}
}

// get returns the entry for callID.
func (t *threadReplay) get(callID string) (replayEntry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.entries) - 1; i >= 0; i-- {
		if t.entries[i].CallID == callID {
			return t.entries[i], true
		}
	}
	return replayEntry{}, false
}

func (t *threadReplay) empty() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.entries) == 0
}

// put records that carrier (the carrier item's input) stands for the model
// item original in thread.
func (s *replayStore) put(thread, callID, carrier string, original []byte) error {
	if err := retain.ValidID(thread); err != nil {
		return fmt.Errorf("replay: thread id: %w", err)
	}
	entry := replayEntry{CallID: callID, Carrier: carrierDigest(carrier), Item: string(original)}
	for {
		t := s.thread(thread)
		// The change and its unsaved mark happen under the store lock, so
		// the thread cannot be evicted in between (a change to an evicted
		// copy would be lost) and the writer sees the new version.
		s.mu.Lock()
		if s.threads[thread] != t {
			s.mu.Unlock()
			continue // evicted since thread() returned: take the current one
		}
		t.mu.Lock()
		t.add(entry, s.lim)
		t.unsaved = s.root != nil
		t.mu.Unlock()
		s.mu.Unlock()
		break
	}
	if s.root != nil {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// add appends e (replacing an entry of the same call) and drops the oldest
// entries beyond the bounds; t.mu is held.
func (t *threadReplay) add(e replayEntry, lim ReplayLimits) {
	if i := slices.IndexFunc(t.entries, func(x replayEntry) bool { return x.CallID == e.CallID }); i >= 0 {
		t.bytes -= len(t.entries[i].Item)
		t.entries = slices.Delete(t.entries, i, i+1)
	}
	t.entries = append(t.entries, e)
	t.bytes += len(e.Item)
	drop := 0
	for len(t.entries)-drop > 1 && (len(t.entries)-drop > lim.MaxEntriesPerThread || t.bytes > lim.MaxBytesPerThread) {
		t.bytes -= len(t.entries[drop].Item)
		drop++
	}
	if drop > 0 {
		t.entries = slices.Delete(t.entries, 0, drop)
	}
	t.version++
}

// write replaces the thread's file atomically.
func (s *replayStore) write(thread string, entries []replayEntry) error {
	b, err := json.Marshal(replayFile{Version: 1, Thread: thread, Entries: entries})
	if err != nil {
		return err
	}
	name := thread + replayFileSuffix
	tmp := ".tmp-" + rand.Text()
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	_, werr := f.Write(b)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = s.root.Rename(tmp, name)
	}
	if werr != nil {
		_ = s.root.Remove(tmp)
		return fmt.Errorf("replay: writing %s: %w", name, werr)
	}
	return nil
}

// evictFiles keeps the directory under MaxThreads thread files (the new
// thread's file is about to be written) and clears stale temporary files.
func (s *replayStore) evictFiles(newThread string) {
	dir, err := s.root.Open(".")
	if err != nil {
		return
	}
	ents, err := dir.ReadDir(-1)
	dir.Close()
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range ents {
		name := e.Name()
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if strings.HasPrefix(name, ".tmp-") {
			if time.Since(info.ModTime()) > time.Hour {
				_ = s.root.Remove(name)
			}
			continue
		}
		if strings.HasSuffix(name, replayFileSuffix) && name != newThread+replayFileSuffix {
			files = append(files, file{name, info.ModTime()})
		}
	}
	excess := len(files) + 1 - s.lim.MaxThreads
	if excess <= 0 {
		return
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range files[:excess] {
		_ = s.root.Remove(f.name)
		id := strings.TrimSuffix(f.name, replayFileSuffix)
		if t, ok := s.threads[id]; ok && !t.unsaved {
			delete(s.threads, id)
		}
	}
}
