package threadstate

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"hpatch-router/retain"
)

// A thread's journal also holds the retentions and edits the router wrote
// because their calls ran (retain.Committed), one line each, in the order
// they were written:
//
//	{"commit":"call_1","at":1700000000000,"retain":"call_1","content":"#!python3\n…"}
//	{"commit":"call_2","at":1700000001000,"patch":"in @shell/call_1\n…","sum":"<hex>"}
//
// "at" is when the change was staged (Unix milliseconds). They let a
// restarted router put back the scripts whose hour has not passed
// (retain.Store.Restore). A change older than a script lives is of no use
// and is dropped from memory and from the next compaction.

// commitLine is the journal form of a retain.Committed.
type commitLine struct {
	Commit  string `json:"commit"`
	At      int64  `json:"at"`
	Retain  string `json:"retain,omitempty"`
	Content string `json:"content,omitempty"`
	Patch   string `json:"patch,omitempty"`
	Sum     string `json:"sum,omitempty"`
}

// committedChange is a retain.Committed with the size of its journal line.
type committedChange struct {
	retain.Committed
	line int
}

// appendCommitLine appends c's journal line, newline included, to dst.
func appendCommitLine(dst []byte, c retain.Committed) []byte {
	b, _ := json.Marshal(commitLine{Commit: c.Call, At: c.At.UnixMilli(), Retain: c.Retain, Content: c.Content, Patch: c.Patch, Sum: c.Sum})
	return append(append(dst, b...), '\n')
}

// decodeCommitLine parses a commit line without its newline, or says why
// it fails its check. A retention's body must match its sum (journals
// written before retentions had one are taken as they are); an edit's sum
// is checked when it is replayed (an edit journaled without one wrote
// versions no source gave: its scripts stay unknown).
func decodeCommitLine(b []byte) (committedChange, string) {
	var l commitLine
	switch {
	case json.Unmarshal(b, &l) != nil:
		return committedChange{}, "not a JSON object"
	case l.Commit == "":
		return committedChange{}, "a commit without its call_id"
	case l.At <= 0:
		return committedChange{}, "a commit without its time"
	case (l.Retain == "") == (l.Patch == ""):
		return committedChange{}, "a commit that is neither one retention nor one edit"
	case l.Retain != "" && l.Sum != "" && l.Sum != retain.RetainSum(l.Retain, l.Content):
		return committedChange{}, "a retained body that does not match its checksum"
	}
	return committedChange{Committed: retain.Committed{Call: l.Commit, At: time.UnixMilli(l.At), Retain: l.Retain, Content: l.Content, Patch: l.Patch, Sum: l.Sum}, line: len(b) + 1}, ""
}

// Commit journals changes of thread that were written; like Put, the
// lines are in the page cache when it returns.
func (s *Store) Commit(thread string, changes []retain.Committed) error {
	t := s.locked(thread)
	defer t.mu.Unlock()
	var err error
	for _, c := range changes {
		cc := committedChange{Committed: c}
		if s.root != nil {
			line := appendCommitLine(nil, c)
			cc.line = len(line)
			if e := s.appendLocked(thread, t, line); e != nil && err == nil {
				err = e
			}
		}
		t.addCommit(cc, s.now(), s.lim)
	}
	if s.root != nil && !t.compact && !t.noJournal && t.needsCompaction() {
		t.compact = true
	}
	s.poke()
	return err
}

// addCommit records a written change and drops the ones a restore can no
// longer use (older than a script lives) or beyond the entry bound; t.mu
// is held.
func (t *threadState) addCommit(c committedChange, now time.Time, lim Limits) {
	t.commits = append(t.commits, c)
	t.lineBytes += c.line
	t.pruneCommits(now, lim)
}

// pruneCommits drops the changes a restore can no longer use; t.mu is
// held.
func (t *threadState) pruneCommits(now time.Time, lim Limits) {
	drop := 0
	for drop < len(t.commits) && (now.Sub(t.commits[drop].At) >= retain.DefaultTTL || len(t.commits)-drop > lim.MaxEntriesPerThread) {
		t.lineBytes -= t.commits[drop].line
		drop++
	}
	t.commits = append(t.commits[:0:0], t.commits[drop:]...)
}

// History returns the changes written in thread that a restore may need,
// oldest first, and whether this is the first time it is asked since the
// thread was loaded (the router restores a thread's scripts once).
func (s *Store) History(thread string) ([]retain.Committed, bool) {
	t := s.locked(thread)
	defer t.mu.Unlock()
	first := !t.restored
	t.restored = true
	out := make([]retain.Committed, len(t.commits))
	for i, c := range t.commits {
		out[i] = c.Committed
	}
	return out, first
}

// callFate is what the router found of a call in a thread's history.
type callFate uint8

const (
	// fateWritten: its change is written (settle) or reconciled.
	fateWritten callFate = iota + 1
	// fateQuiet: its carrier changes no script, or Codex aborted it.
	fateQuiet
)

// markKnownLocked records the fate of call id; t.mu is held. The map is
// bounded: past twice the entry bound it starts again (the next request
// reconciles once more).
func (t *threadState) markKnownLocked(id string, f callFate, lim Limits) {
	if t.known == nil || len(t.known) >= 2*lim.MaxEntriesPerThread {
		t.known = map[string]callFate{}
	}
	t.known[strings.Clone(id)] = f // id may alias a request body
}

// MarkKnown records that the changes of calls ids are written (or known
// to have no version) in thread, so a request that shows them again does
// not reconcile them again.
func (s *Store) MarkKnown(thread string, ids []string) { s.mark(thread, ids, fateWritten) }

// Knows reports whether the change of call callID is written in thread
// (settled, journaled or reconciled); a call found quiet is forgotten, as
// it is sent again.
func (s *Store) Knows(thread, callID string) bool {
	t := s.locked(thread)
	defer t.mu.Unlock()
	if t.known[callID] == fateQuiet {
		delete(t.known, callID)
	}
	return t.known[callID] == fateWritten || slices.ContainsFunc(t.commits, func(c committedChange) bool { return c.Call == callID })
}

// MarkQuiet records that Codex aborted calls ids of thread: until one is
// sent again (Knows), a request does not look at it again.
func (s *Store) MarkQuiet(thread string, ids []string) { s.mark(thread, ids, fateQuiet) }

// mark records the fate of calls ids of thread.
func (s *Store) mark(thread string, ids []string, f callFate) {
	if len(ids) == 0 {
		return
	}
	t := s.locked(thread)
	defer t.mu.Unlock()
	for _, id := range ids {
		t.markKnownLocked(id, f, s.lim)
	}
}
