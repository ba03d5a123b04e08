package retain

import (
	"slices"
	"time"
)

// An operation on a thread needs its thread and scripts directories open
// (two descriptors). The store keeps them open between operations for the
// threads it serves now, so a thread's next retain checks two names
// (recheck) instead of opening both directories again, within two bounds:
// at most maxOpenThreads threads stay open (the least recently used is
// closed first), and a thread unused for one to two idlePeriods is closed.
// The period is short: kept-open directories serve a burst of operations
// (several calls in a response, responses after quick tool calls), a
// reopen costs about ten system calls, and an idle router is back to the
// descriptors it had within two seconds, as with its journal handles.
const (
	maxOpenThreads = 16
	idlePeriod     = time.Second
)

// openLocked readies ts for an operation: it rechecks the directories ts
// holds open (recheck), or opens them by name again (reopen). On error ts
// holds nothing open. s.mu must be held.
func (s *Store) openLocked(ts *threadStore) error {
	if !ts.isOpen() {
		return ts.reopen(s.runtime, s.uid)
	}
	if err := ts.recheck(s.runtime, s.uid); err != nil {
		s.closeLocked(ts)
		return err
	}
	return nil
}

// keepOpenLocked keeps ts's directories open as the most recently used,
// closes the least recently used beyond maxOpenThreads, and arms the idle
// sweep. s.mu must be held.
func (s *Store) keepOpenLocked(ts *threadStore) {
	ts.used = true
	if i := slices.Index(s.open, ts); i >= 0 {
		s.open = slices.Delete(s.open, i, i+1)
	}
	s.open = append(s.open, ts)
	if len(s.open) > maxOpenThreads {
		s.open[0].close()
		s.open = slices.Delete(s.open, 0, 1)
	}
	if s.idle == nil {
		s.idle = s.afterFunc(idlePeriod, s.closeIdle)
	}
}

// closeLocked closes ts's directories. s.mu must be held.
func (s *Store) closeLocked(ts *threadStore) {
	ts.close()
	if i := slices.Index(s.open, ts); i >= 0 {
		s.open = slices.Delete(s.open, i, i+1)
	}
}

// closeIdle closes the directories of every thread not used since the
// previous sweep and arms the next sweep while any stay open.
func (s *Store) closeIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idle = nil
	if s.closed {
		return
	}
	s.open = slices.DeleteFunc(s.open, func(ts *threadStore) bool {
		if ts.used {
			ts.used = false
			return false
		}
		ts.close()
		return true
	})
	if len(s.open) > 0 {
		s.idle = s.afterFunc(idlePeriod, s.closeIdle)
	}
}
