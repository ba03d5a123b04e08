package retain

import (
	"fmt"

	"hpatch-router/scriptref"
)

// A thread's script versions beyond its files have one owner here: the
// changes staged and waiting for their calls (stage.go), whose versions
// are the newest, and the scripts whose version no source gives
// (history.go), which are refused. Staging, settling and reconciling
// change them; Resolve, StageEdit and Reconcile ask them which version of
// a script is current, and the files hold the rest.

// threadVersions is one thread's versions beyond its files.
type threadVersions struct {
	staged  []*stagedChange   // changes waiting for their calls, in order
	unknown map[string]string // scripts whose version no source gives, and why
}

// pending returns the changes tv has staged, in order (none for nil).
func (tv *threadVersions) pending() []*stagedChange {
	if tv == nil {
		return nil
	}
	return tv.staged
}

// versionsLocked returns thread's versions, made when create is set, or
// nil; s.mu is held.
func (s *Store) versionsLocked(thread string, create bool) *threadVersions {
	tv := s.versions[thread]
	if tv == nil && create {
		tv = &threadVersions{}
		s.versions[thread] = tv
	}
	return tv
}

// dropEmptyLocked forgets thread's versions once nothing is staged or
// marked; s.mu is held.
func (s *Store) dropEmptyLocked(thread string) {
	if tv := s.versions[thread]; tv != nil && len(tv.staged) == 0 && len(tv.unknown) == 0 {
		delete(s.versions, thread)
	}
}

// stageLocked adds c as thread's newest staged change; s.mu is held.
func (s *Store) stageLocked(thread string, c *stagedChange) {
	tv := s.versionsLocked(thread, true)
	tv.staged = append(tv.staged, c)
}

// keepStagedLocked makes keep thread's staged changes; s.mu is held.
func (s *Store) keepStagedLocked(thread string, keep []*stagedChange) {
	if tv := s.versionsLocked(thread, len(keep) > 0); tv != nil {
		tv.staged = keep
		s.dropEmptyLocked(thread)
	}
}

// stagedLocked returns the newest staged change of thread that writes id
// and what it makes of it; s.mu is held.
func (s *Store) stagedLocked(thread, id string) (*stagedChange, []byte) {
	cs := s.versions[thread].pending()
	for i := len(cs) - 1; i >= 0; i-- {
		if v, ok := cs[i].version(id); ok {
			return cs[i], v
		}
	}
	return nil, nil
}

// markLocked records why artifact id of thread has no version, or clears
// the mark for why == ""; s.mu is held.
func (s *Store) markLocked(thread, id, why string) {
	if why == "" {
		if tv := s.versions[thread]; tv != nil {
			delete(tv.unknown, id)
			s.dropEmptyLocked(thread)
		}
		return
	}
	tv := s.versionsLocked(thread, true)
	if tv.unknown == nil {
		tv.unknown = map[string]string{}
	}
	if _, ok := tv.unknown[id]; ok || len(tv.unknown) < maxUnknownPerThread {
		tv.unknown[id] = why
	}
}

// unknownLocked is the error for artifact id of thread when its version
// is unknown, or nil; s.mu is held.
func (s *Store) unknownLocked(thread, id string) error {
	tv := s.versions[thread]
	if tv == nil {
		return nil
	}
	why, ok := tv.unknown[id]
	if !ok {
		return nil
	}
	return fmt.Errorf("%s cannot be run as the version this conversation last showed: %s; retain the script again", scriptref.FormatRef(id), why)
}
