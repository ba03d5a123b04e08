package threadstate

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// syncDelay lets journal writes coalesce into about one fsync per
// thread and second. The fsync only guards against power loss: a line is
// safe from a router crash as soon as its write() returned.
const syncDelay = time.Second

// maintainer runs the store's disk upkeep until Close: fsyncs, compaction,
// closing evicted journals and the MaxThreads file bound.
func (s *Store) maintainer() {
	defer close(s.stopped)
	delay := time.NewTimer(syncDelay)
	delay.Stop()
	for {
		select {
		case <-s.wake:
			delay.Reset(syncDelay)
			select {
			case <-delay.C:
			case <-s.stop:
				delay.Stop()
				return
			}
			s.flush()
		case <-s.stop:
			return
		}
	}
}

// flush fsyncs every journal written since the last pass, closes the
// journals of threads not written since the last pass (an idle thread
// holds no descriptor; its next put reopens the journal), fsyncs the
// journals of threads evicted since, compacts the journals due for it and,
// when journals were created or an hour passed, applies the MaxAge and
// MaxTotalBytes bounds. While a journal
// stays open it asks for another pass, so the handle of a thread that goes
// idle is closed about a second after its last fsync.
func (s *Store) flush() {
	s.maintMu.Lock()
	defer s.maintMu.Unlock()
	s.mu.Lock()
	retired := s.retired
	s.retired = nil
	ids := make([]string, 0, len(s.threads))
	ts := make([]*threadState, 0, len(s.threads))
	for id, t := range s.threads {
		ids, ts = append(ids, id), append(ts, t)
	}
	s.mu.Unlock()
	s.syncRetired(retired)
	open := false // a journal stays open after this pass
	for i, t := range ts {
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			continue
		}
		if t.compact {
			t.mu.Unlock()
			s.compactThread(ids[i], t)
			open = true // the new journal is open
			continue
		}
		var sync, idle *os.File
		switch {
		case t.f == nil:
		case t.dirty:
			sync, t.dirty = t.f, false
			open = true
		default: // synced by an earlier pass and not written since
			idle, t.f = t.f, nil
		}
		t.mu.Unlock()
		// Outside the lock: only this goroutine (under maintMu) closes
		// journal handles, so sync stays open.
		if sync != nil {
			if err := sync.Sync(); err != nil {
				s.log.Error("cannot fsync a replay journal", "file", journalName(ids[i]), "err", err)
			}
		}
		if idle != nil {
			_ = idle.Close()
		}
	}
	if open {
		s.poke()
	}
	if s.created.Swap(false) || time.Since(s.evicted) >= time.Hour {
		s.evicted = time.Now()
		s.evictFiles()
		s.syncDir()
	}
}

// syncRetired fsyncs the journals of evicted threads by name, one handle
// at a time.
func (s *Store) syncRetired(names []string) {
	for _, name := range names {
		f, err := s.root.OpenFile(name, os.O_RDONLY, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile
		}
		if err == nil {
			s.syncClose(f)
			continue
		}
		s.log.Error("cannot fsync a replay journal", "file", name, "err", err)
	}
}

// closeAll flushes and closes every journal; the maintainer has stopped.
func (s *Store) closeAll() {
	s.flush()
	s.maintMu.Lock()
	defer s.maintMu.Unlock()
	s.mu.Lock()
	ts := make([]*threadState, 0, len(s.threads))
	for _, t := range s.threads {
		ts = append(ts, t)
	}
	retired := s.retired
	s.retired = nil
	s.mu.Unlock()
	s.syncRetired(retired)
	for _, t := range ts {
		t.mu.Lock()
		if t.f != nil {
			s.syncClose(t.f)
			t.f, t.dirty = nil, false
		}
		t.mu.Unlock()
	}
}

func (s *Store) syncClose(f *os.File) {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.log.Error("cannot fsync a replay journal", "file", f.Name(), "err", err)
	}
}

// syncDir makes created and renamed journals survive a power loss.
func (s *Store) syncDir() {
	d, err := s.root.Open(".")
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// evictFiles removes the journals not written for MaxAge, then the least
// recently written ones while all of them hold more than MaxTotalBytes
// (and temporary files a crash left behind). A cached thread busy in
// another goroutine is not the least recently written one; it is skipped
// rather than waited for.
func (s *Store) evictFiles() {
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
		size int64
	}
	var files []file
	for _, e := range ents {
		name := e.Name()
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		switch {
		case strings.HasPrefix(name, tempPrefix):
			if time.Since(info.ModTime()) > time.Hour {
				_ = s.root.Remove(name)
			}
		case strings.HasSuffix(name, journalSuffix):
			files = append(files, file{name, info.ModTime(), info.Size()})
		}
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	oldest := time.Now().Add(-s.lim.MaxAge)
	if total <= s.lim.MaxTotalBytes && !slices.ContainsFunc(files, func(f file) bool { return f.mod.Before(oldest) }) {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range files {
		if total <= s.lim.MaxTotalBytes && !f.mod.Before(oldest) {
			return
		}
		id := strings.TrimSuffix(f.name, journalSuffix)
		if t, ok := s.threads[id]; ok {
			if !t.mu.TryLock() {
				continue
			}
			s.detachLocked(id, t)
			t.mu.Unlock()
		}
		// Under s.mu: no copy of the thread can be loaded meanwhile.
		if err := s.root.Remove(f.name); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= f.size
			s.log.Info("replay journal removed", "file", f.name, "last_written", f.mod, "max_age", s.lim.MaxAge, "max_total_bytes", s.lim.MaxTotalBytes)
		}
	}
}
