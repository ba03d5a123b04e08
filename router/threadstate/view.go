package threadstate

import (
	"iter"

	"hpatch-router/retain"
)

// View is one thread's state while Store.View holds its lock: what a
// request's walk over its calls asks of the thread, answered from one
// consistent state. It is valid only inside the function given to
// Store.View.
type View struct {
	t   *threadState
	lim Limits
}

// View calls fn with the thread's state, locked until fn returns. fn
// must not call the Store for the same thread.
func (s *Store) View(thread string, fn func(v View)) {
	t := s.locked(thread)
	defer t.mu.Unlock()
	fn(View{t: t, lim: s.lim})
}

// Get returns the newest entry the thread holds for callID.
func (v View) Get(callID string) (Entry, bool) { return v.t.get(callID) }

// Match returns the entry of callID whose carrier was carrier (the carrier
// item's input), the newest when several were.
func (v View) Match(callID, carrier string) (Entry, bool) {
	return v.t.match(callID, carrierDigest(carrier))
}

// NoteLost records that callID was echoed as a carrier the thread has no
// entry for, and reports whether that is news: it is said once per call
// while the thread is cached.
func (v View) NoteLost(callID string) bool { return v.t.noteLost(callID, v.lim) }

// Seen reports whether a request already found what became of callID
// since the thread was loaded: its change is written, or it changes no
// script, or Codex aborted it.
func (v View) Seen(callID string) bool { return v.t.known[callID] != 0 }

// MarkQuiet records that callID changes no script (or Codex aborted it),
// so later requests do not look at it again until it is sent again.
func (v View) MarkQuiet(callID string) { v.t.markKnownLocked(callID, fateQuiet, v.lim) }

// Commits yields the changes journaled as written in the thread that a
// restore may still need, oldest first.
func (v View) Commits() iter.Seq[retain.Committed] {
	return func(yield func(retain.Committed) bool) {
		for _, c := range v.t.commits {
			if !yield(c.Committed) {
				return
			}
		}
	}
}
