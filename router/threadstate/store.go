package threadstate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"hpatch-router/ident"
)

// Limits bound the replay store. When a thread holds more than
// MaxEntriesPerThread entries or MaxBytesPerThread bytes of original items
// and carriers, its oldest entries are dropped (its journal is compacted
// once the dropped lines outnumber the live ones, so a file stays under
// about twice the bound). Journals are kept as long as a conversation may
// be resumed: one not written for MaxAge is removed, and while the state
// directory holds more than MaxTotalBytes of journals the least recently
// written one is removed. MaxCachedThreads bounds the threads kept in
// memory (files stay on disk; an evicted thread's journal handle is closed
// at once); without a state directory, MaxThreads bounds the threads
// remembered at all.
type Limits struct {
	MaxEntriesPerThread int
	MaxBytesPerThread   int
	MaxAge              time.Duration
	MaxTotalBytes       int64
	MaxThreads          int
	MaxCachedThreads    int
}

// DefaultLimits: 4096 entries or 16 MiB per thread; journals kept
// 90 days after their last write (Codex keeps a session resumable with no
// end; this covers the sessions users go back to) and 1 GiB in all; 128
// threads cached in memory, 1024 remembered without a state directory.
func DefaultLimits() Limits {
	return Limits{
		MaxEntriesPerThread: 4096,
		MaxBytesPerThread:   16 << 20,
		MaxAge:              90 * 24 * time.Hour,
		MaxTotalBytes:       1 << 30,
		MaxThreads:          1024,
		MaxCachedThreads:    128,
	}
}

// Entry maps one carrier the router emitted back to the model's
// original call item. A thread may hold several entries of one call_id
// (a call sent again with a different body): each is a version of that
// call, and every one stays restorable.
type Entry struct {
	callID string
	// carrier is the hex SHA-256 of the carrier item's input string.
	carrier string
	// sent is that input string itself, so the same call sent again gets
	// the same carrier without a new translation, retention or edit; ""
	// in entries of journals written before it was kept.
	sent string
	// Item is the model's original item, byte for byte as the upstream
	// sent it in output_item.done.
	Item string
	// At is when the carrier was sent (zero in entries of journals
	// written before it was kept).
	At time.Time
	// line is the size of the entry's journal line (0 in memory-only
	// mode), so the store knows how much of a journal is live.
	line int
}

// threadState is the cached copy of one thread: its live entries, oldest
// first, and the state of its journal file. Everything is guarded by mu.
type threadState struct {
	mu        sync.Mutex
	entries   []Entry
	byID      map[string][]int  // call_id -> base + index in entries of its versions, oldest first
	base      int               // entries dropped from the front so far
	bytes     int               // item and carrier bytes of the live entries
	lineBytes int               // journal bytes of the live entries and commits
	commits   []committedChange // changes written, oldest first (commits.go)
	restored  bool              // history was handed to a restore since the thread was loaded
	lost      map[string]bool   // calls echoed as carriers with no entry, said once
	// known: what the router found of calls since the thread was loaded
	// (commits.go), so a request reconciles each call once.
	known map[string]callFate

	// Journal state (state directory mode only).
	f        *os.File // append handle, opened by the first put
	onDisk   bool     // the journal file exists
	lines    int      // lines in the file, dead and broken ones included
	size     int64    // bytes in the file
	torn     bool     // the file ends inside a line (crash mid-write)
	dirty    bool     // written since the last fsync
	compact  bool     // due for compaction
	tail     []byte   // non-nil while compacting: lines appended meanwhile
	closed   bool     // evicted from the cache: use the store's current copy
	loadErrs int      // unreadable lines found by load
	// noJournal: the journal can never be written (see journalFailed);
	// entries stay in memory only.
	noJournal bool
	fails     int // journal opens and compactions failed in a row

	used uint64 // store clock at last use; guarded by Store.mu
}

// Store keeps replay entries per thread: in memory and, when a state
// directory is set, in one append-only journal per thread,
// <thread>.replay.jsonl (mode 0600, in a 0700 directory opened as an
// os.Root), one JSON line per entry.
//
// Put writes an entry's line with a single write() before it returns, that
// is before the carrier's events reach Codex. A write() that returned is
// in the kernel's page cache, so a crash of the router (even kill -9)
// loses nothing; only a power loss or kernel crash can lose the lines
// written since the last fsync, which a background maintainer issues about
// a second after a write and Close issues for everything. The maintainer
// also closes the journals of threads evicted from the cache, compacts
// journals that hold many dead lines, closes the journals of idle threads
// and removes the oldest journals beyond MaxThreads. A journal that cannot
// be written (a name the file system cannot hold, or failures on several
// passes in a row) is given up with one log line; that thread's entries
// then stay in memory only.
type Store struct {
	root    *os.Root // nil: memory only
	lim     Limits
	now     func() time.Time
	log     *slog.Logger
	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	closeMu sync.Once
	maintMu sync.Mutex // serializes maintenance passes

	mu      sync.Mutex
	threads map[string]*threadState
	clock   uint64
	retired []string  // journals of evicted threads (closed at eviction), to fsync
	evicted time.Time // when evictFiles last ran

	created atomic.Bool // a journal was created or renamed since the last pass
}

// Open opens the store on the state directory dir (made 0700 if it is
// missing), or in memory only when dir is "". Zero MaxAge and
// MaxTotalBytes take the defaults. With a directory, a maintainer runs
// until Close.
func Open(dir string, lim Limits, log *slog.Logger) (*Store, error) {
	def := DefaultLimits()
	if lim.MaxAge <= 0 {
		lim.MaxAge = def.MaxAge
	}
	if lim.MaxTotalBytes <= 0 {
		lim.MaxTotalBytes = def.MaxTotalBytes
	}
	s := &Store{lim: lim, log: log, now: time.Now, threads: map[string]*threadState{}}
	if dir == "" {
		return s, nil
	}
	// Both failures are a directory this user cannot use.
	const fix = "; name a directory you can write, or none to keep replay in memory"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("replay state directory: %w%s", err, fix)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("replay state directory: %w%s", err, fix)
	}
	s.root = root
	s.wake = make(chan struct{}, 1)
	s.stop = make(chan struct{})
	s.stopped = make(chan struct{})
	go s.maintainer()
	return s, nil
}

// Close fsyncs and closes every journal and releases the state directory.
func (s *Store) Close() error {
	if s.root == nil {
		return nil
	}
	var err error
	s.closeMu.Do(func() {
		close(s.stop)
		<-s.stopped
		s.closeAll()
		err = s.root.Close()
	})
	return err
}

func carrierDigest(input string) string {
	sum := sha256.Sum256([]byte(input))
	return hex.EncodeToString(sum[:])
}

// thread returns the cached copy of a thread, loading its journal on first
// use. The copy is inserted before it is loaded, with its lock held until
// the load is done, so there is never more than one live copy of a thread
// and a copy can only be loaded after the one before it stopped taking
// writes. The caller must lock the copy and check closed.
func (s *Store) thread(id string) *threadState {
	s.mu.Lock()
	s.clock++
	if t, ok := s.threads[id]; ok {
		t.used = s.clock
		s.mu.Unlock()
		return t
	}
	t := &threadState{byID: map[string][]int{}, used: s.clock}
	t.mu.Lock() // a fresh mutex: cannot block under s.mu
	s.threads[id] = t
	s.evictCacheLocked(id)
	s.mu.Unlock()
	s.load(id, t)
	t.mu.Unlock()
	return t
}

// locked returns the thread's current copy, locked.
func (s *Store) locked(id string) *threadState {
	for {
		t := s.thread(id)
		t.mu.Lock()
		if !t.closed {
			return t
		}
		t.mu.Unlock() // evicted meanwhile: take the current copy
	}
}

// evictCacheLocked drops the least recently used threads from memory (in
// memory-only mode that forgets them, so the bound is MaxThreads). A thread
// busy in another goroutine is skipped, so the cache may briefly exceed
// its bound rather than make s.mu wait on a thread's disk work.
func (s *Store) evictCacheLocked(keep string) {
	max := s.lim.MaxCachedThreads
	if s.root == nil {
		max = s.lim.MaxThreads
	}
	busy := map[string]bool{}
	for len(s.threads) > max {
		var oldest string
		var at uint64
		for id, t := range s.threads {
			if id != keep && !busy[id] && (oldest == "" || t.used < at) {
				oldest, at = id, t.used
			}
		}
		if oldest == "" {
			return
		}
		t := s.threads[oldest]
		if !t.mu.TryLock() {
			busy[oldest] = true
			continue
		}
		s.detachLocked(oldest, t)
		t.mu.Unlock()
	}
}

// detachLocked removes t from the cache and closes its journal handle at
// once, so a burst of new threads holds no more descriptors than the cache
// bound; a journal written since its last fsync is named to the
// maintainer, which fsyncs it through a fresh handle (an fsync flushes the
// file, whichever descriptor asks). s.mu and t.mu are held.
func (s *Store) detachLocked(id string, t *threadState) {
	delete(s.threads, id)
	t.closed = true
	if t.f != nil {
		_ = t.f.Close()
		t.f = nil
		if t.dirty {
			s.retired = append(s.retired, journalName(id))
			s.poke()
		}
	}
}

// poke wakes the maintainer.
func (s *Store) poke() {
	if s.wake == nil {
		return
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// noteLost records that call callID of the thread was echoed as a carrier
// the store cannot restore, and reports whether that is news (it is said
// once per call while the thread is cached); t.mu is held.
func (t *threadState) noteLost(callID string, lim Limits) bool {
	if t.lost[callID] {
		return false
	}
	if t.lost == nil || len(t.lost) >= lim.MaxEntriesPerThread {
		t.lost = map[string]bool{}
	}
	t.lost[strings.Clone(callID)] = true // callID may alias a request body
	return true
}

// get returns the newest entry for callID; t.mu is held.
func (t *threadState) get(callID string) (Entry, bool) {
	if v := t.byID[callID]; len(v) > 0 {
		return t.entries[v[len(v)-1]-t.base], true
	}
	return Entry{}, false
}

// match returns the entry of callID whose carrier has digest carrier, the
// newest when several do; t.mu is held.
func (t *threadState) match(callID, carrier string) (Entry, bool) {
	v := t.byID[callID]
	for i := len(v) - 1; i >= 0; i-- {
		if e := t.entries[v[i]-t.base]; e.carrier == carrier {
			return e, true
		}
	}
	return Entry{}, false
}

// Sent returns the carrier the router sent for the same call as item (the
// same call_id, name, namespace and input) in thread, if it kept one:
// sending a call again must not translate, retain or edit again.
func (s *Store) Sent(thread, callID string, item gjson.Result) (string, bool) {
	t := s.locked(thread)
	defer t.mu.Unlock()
	v := t.byID[callID]
	for i := len(v) - 1; i >= 0; i-- {
		if e := t.entries[v[i]-t.base]; e.sent != "" && sameCall(gjson.Parse(e.Item), item) {
			return e.sent, true
		}
	}
	return "", false
}

// sameCall reports whether two call items are the same call: the same
// call_id, name, namespace and input (an upstream that replays a call may
// give it a new item id).
func sameCall(a, b gjson.Result) bool {
	for _, k := range [...]string{"call_id", "name", "namespace", "input"} {
		x, y := a.Get(k), b.Get(k)
		if x.Exists() != y.Exists() || x.Type != y.Type || x.String() != y.String() {
			return false
		}
	}
	return true
}

// Put records that carrier (the carrier item's input) stands for the model
// item original in thread. With a state directory the entry is in the
// thread's journal (page cache) when Put returns; an error means it could
// not be written, though it is still kept in memory. An entry the thread
// already holds (same call, carrier and item) is not written again.
func (s *Store) Put(thread, callID, carrier string, original []byte) error {
	if err := ident.Thread(thread); err != nil {
		return err
	}
	// callID is cloned: it is a substring of gjson's copy of the whole
	// item, which the entry would otherwise keep alive beside its own.
	e := Entry{callID: strings.Clone(callID), carrier: carrierDigest(carrier), sent: carrier, Item: string(original), At: s.now()}
	var line []byte
	if s.root != nil {
		line = appendJournalLine(nil, e)
		e.line = len(line)
	}
	t := s.locked(thread)
	if t.holds(e) {
		t.mu.Unlock()
		return nil
	}
	var err error
	if s.root != nil {
		err = s.appendLocked(thread, t, line)
	}
	t.add(e, s.lim)
	if s.root != nil && !t.compact && !t.noJournal && t.needsCompaction() {
		t.compact = true
	}
	t.mu.Unlock()
	s.poke()
	return err
}

// holds reports whether t has e already; t.mu is held.
func (t *threadState) holds(e Entry) bool {
	old, ok := t.match(e.callID, e.carrier)
	return ok && old.Item == e.Item && old.sent == e.sent
}

// add appends e as the newest version of its call and drops the oldest
// entries beyond the bounds; t.mu is held. An entry with the same call and
// carrier is replaced (the carrier restores to one item: the newest).
// Replaying a journal's lines through add rebuilds exactly the entries the
// store held.
func (t *threadState) add(e Entry, lim Limits) {
	if old, ok := t.match(e.callID, e.carrier); ok {
		if e.sent == "" {
			e.sent = old.sent
		}
		t.remove(e.callID, e.carrier)
	}
	t.byID[e.callID] = append(t.byID[e.callID], t.base+len(t.entries))
	t.entries = append(t.entries, e)
	t.bytes += e.size()
	t.lineBytes += e.line
	drop := 0
	for len(t.entries)-drop > 1 && (len(t.entries)-drop > lim.MaxEntriesPerThread || t.bytes > lim.MaxBytesPerThread) {
		old := t.entries[drop]
		t.bytes -= old.size()
		t.lineBytes -= old.line
		if v := t.byID[old.callID][1:]; len(v) > 0 {
			t.byID[old.callID] = v
		} else {
			delete(t.byID, old.callID)
		}
		t.entries[drop] = Entry{} // let the GC have the item
		drop++
	}
	t.entries = t.entries[drop:]
	t.base += drop
}

// remove deletes the entry of callID with digest carrier (rare: a call
// sent again with the same carrier) and renumbers the index; t.mu is held.
func (t *threadState) remove(callID, carrier string) {
	v := t.byID[callID]
	k := slices.IndexFunc(v, func(p int) bool { return t.entries[p-t.base].carrier == carrier })
	i := v[k] - t.base
	old := t.entries[i]
	t.bytes -= old.size()
	t.lineBytes -= old.line
	t.entries = slices.Delete(t.entries, i, i+1)
	clear(t.byID)
	for j, e := range t.entries {
		t.byID[e.callID] = append(t.byID[e.callID], t.base+j)
	}
}

// size is what an entry counts against MaxBytesPerThread.
func (e Entry) size() int { return len(e.Item) + len(e.sent) }
