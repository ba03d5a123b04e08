package retain

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"time"

	"hpatch-router/hpatch"
	"hpatch-router/ident"
	"hpatch-router/scriptref"
)

// A change counts only when its call runs. The router stages a retention
// (Stage) or an edit (StageEdit) while the model's call streams, so the
// call's report is ready and later calls of the same response see the
// staged version (Resolve, StageEdit), and settles it (Settle) when a later
// request says what became of the call: committed to disk when the call
// ran, discarded with everything staged on top of it when Codex aborted the
// call or the call is gone from the conversation. Codex's default sandbox
// is read-only, so the worker cannot do the write; the store does it for
// the router.

// CallState is what a request says about a call that staged a change.
type CallState int

const (
	// CallPending: the call is in the input without its output, or its
	// response is still streaming. The change stays staged.
	CallPending CallState = iota
	// CallRan: the call's output is in the input and is not "aborted".
	CallRan
	// CallAborted: Codex answered the call with "aborted".
	CallAborted
	// CallGone: the call is not in the input.
	CallGone
)

// maxStagedPerThread bounds the changes one thread may have waiting for
// their calls: a model cannot grow the store without its calls running.
const maxStagedPerThread = 64

// stagedChange is one call's change waiting for that call to run: a
// retention (content as artifact retain) or an edit (edits).
type stagedChange struct {
	call    string
	retain  string
	content []byte
	patch   string // an edit's hpatch input
	edits   []hpatch.Edit
	parents []*stagedChange // staged changes whose versions this one was made on
	at      time.Time       // when it was staged; a retention's hour counts from here
}

// version returns what c makes of artifact id, if it writes id.
func (c *stagedChange) version(id string) ([]byte, bool) {
	if c.retain == id {
		return c.content, true
	}
	for _, e := range c.edits {
		if e.ID == id {
			return e.New, true
		}
	}
	return nil, false
}

// sum is the versions c wrote (editsSum; retainSum for a retention).
func (c *stagedChange) sum() string {
	if c.retain != "" {
		return retainSum(c.retain, c.content)
	}
	return editsSum(c.edits)
}

// Stage checks that content could be retained as artifact id of thread,
// as Retain would, and stages the retention for call id; it returns
// "@shell/<id>". Resolve and StageEdit see the staged script at once;
// Settle writes it when the call ran. Errors are Retain's, or too many
// changes waiting in the thread.
func (s *Store) Stage(ctx context.Context, thread, id, content string) (string, error) {
	if err := checkRetain(ctx, thread, id, content); err != nil {
		return "", err
	}
	ref := scriptref.FormatRef(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.stageableLocked(thread); err != nil {
		return "", err
	}
	exists := func() bool {
		if c, _ := s.stagedLocked(thread, id); c != nil {
			return true
		}
		// One lookup under the runtime root, without opening the thread:
		// the check only refuses, and the commit creates the file
		// exclusively in the verified scripts directory. A thread that has
		// no script of its own yet would otherwise have its directories
		// opened, verified and closed again on every call it streams.
		_, err := s.runtime.Lstat(path.Join(ident.ThreadDirName(thread), ident.ScriptsDirName, id))
		return err == nil
	}
	if exists() {
		return "", fmt.Errorf("%s already exists in this thread; not overwriting it: %w", ref, fs.ErrExist)
	}
	s.stageLocked(thread, &stagedChange{call: id, retain: id, content: []byte(content), at: s.now()})
	return ref, nil
}

// StageEdit checks hpatch edit patch of call callID against thread's
// scripts, each as its newest staged version or else as it is on disk,
// stages the new versions and returns the report the model sees. Errors
// are Apply's; nothing is staged on error.
func (s *Store) StageEdit(ctx context.Context, thread, callID, patch string) (string, error) {
	p, err := parseEdit(ctx, thread, patch)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.stageableLocked(thread); err != nil {
		return "", err
	}
	c, err := s.checkEditLocked(thread, p, true)
	if err != nil {
		return "", err
	}
	c.call, c.patch = callID, patch
	s.stageLocked(thread, c)
	return hpatch.FormatReport(c.edits), nil
}

// parseEdit parses an hpatch edit of thread's scripts.
func parseEdit(ctx context.Context, thread, patch string) (*hpatch.Patch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkThread(thread); err != nil {
		return nil, err
	}
	p, err := ParsePatch(patch)
	if err != nil {
		return nil, err
	}
	if p.Workspace {
		return nil, workspaceInStore(p)
	}
	return p, nil
}

// checkEditLocked verifies and applies p in memory against thread's
// scripts, each read once as the baseline: its newest staged version when
// staged is set, or else the file. The change it returns has the edits and
// the staged changes it was made on; s.mu is held.
func (s *Store) checkEditLocked(thread string, p *hpatch.Patch, staged bool) (*stagedChange, error) {
	c := &stagedChange{at: s.now()}
	baseline := make(map[string][]byte, len(p.Sections))
	var ts *threadStore
	for _, sec := range p.Sections {
		if err := s.unknownLocked(thread, sec.ID); err != nil {
			return nil, hpatch.WrapAt(sec.Line, err)
		}
		if parent, v := s.stagedLocked(thread, sec.ID); staged && parent != nil {
			baseline[sec.ID] = v
			if !slices.Contains(c.parents, parent) {
				c.parents = append(c.parents, parent)
			}
			continue
		}
		if ts == nil {
			var err error
			if ts, err = s.threadLocked(thread, false); err != nil {
				return nil, hpatch.WrapAt(sec.Line, threadMissing(err, scriptref.FormatRef(sec.ID)))
			}
			defer s.releaseLocked(ts)
		}
		data, err := ReadScript(ts.scripts, sec.ID)
		if err != nil {
			return nil, hpatch.WrapAt(sec.Line, err)
		}
		baseline[sec.ID] = data
	}
	var err error
	if c.edits, err = applyPatch(p, baseline); err != nil {
		return nil, err
	}
	return c, nil
}

// stageableLocked reports why thread cannot stage another change, after
// dropping the changes that waited longer than a script lives; s.mu is
// held.
func (s *Store) stageableLocked(thread string) error {
	if s.closed {
		return ErrClosed
	}
	s.dropExpiredLocked()
	if len(s.versions[thread].pending()) >= maxStagedPerThread {
		return fmt.Errorf("%d changes in this thread are waiting for their calls to run; run or drop those calls first", maxStagedPerThread)
	}
	return nil
}

// dropExpiredLocked discards the changes of every thread that waited
// longer than a script lives for their call, with what was staged on top
// of them; s.mu is held.
func (s *Store) dropExpiredLocked() {
	now := s.now()
	for thread, tv := range s.versions {
		if len(tv.staged) == 0 {
			continue
		}
		s.settleLocked(thread, tv.staged, func(c *stagedChange) CallState {
			if now.Sub(c.at) >= s.ttl {
				return CallGone
			}
			return CallPending
		})
	}
}

// Staged reports whether thread has changes waiting for their calls.
func (s *Store) Staged(thread string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.versions[thread].pending()) > 0
}

// Settle asks state about the call of each change thread has staged, in
// the order they were staged: a change whose call ran is written (its
// parents first; a retention keeps its hour from when it was staged), a
// change whose call was aborted or is gone is discarded with every change
// staged on top of it, and a pending one waits. A write that fails, or an
// edit whose script changed on disk since it was checked, is logged and
// dropped: the model was told the result when the call streamed. It
// returns the changes written, in order, for the router's journal.
func (s *Store) Settle(ctx context.Context, thread string, state func(callID string) CallState) []Committed {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || ctx.Err() != nil {
		return nil
	}
	cs := s.versions[thread].pending()
	if len(cs) == 0 {
		return nil
	}
	return s.settleLocked(thread, cs, func(c *stagedChange) CallState { return state(c.call) })
}

// StagedCall reports whether call callID of thread has a change staged.
func (s *Store) StagedCall(thread, callID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.versions[thread].pending(), func(c *stagedChange) bool { return c.call == callID })
}

// settleLocked settles cs, thread's staged changes, by state, and returns
// the changes written; s.mu is held.
func (s *Store) settleLocked(thread string, cs []*stagedChange, state func(*stagedChange) CallState) (committed []Committed) {
	dropped := map[*stagedChange]bool{}
	waiting := map[*stagedChange]bool{}
	var keep []*stagedChange
	for _, c := range cs {
		switch {
		case slices.ContainsFunc(c.parents, func(p *stagedChange) bool { return dropped[p] }):
			dropped[c] = true
		case slices.ContainsFunc(c.parents, func(p *stagedChange) bool { return waiting[p] }):
			waiting[c] = true
		default:
			switch state(c) {
			case CallRan:
				if s.commitStagedLocked(thread, c) {
					committed = append(committed, Committed{Call: c.call, At: c.at, Retain: c.retain, Content: string(c.content), Patch: c.patch, Sum: c.sum()})
				}
				continue
			case CallPending:
				waiting[c] = true
			default:
				dropped[c] = true
			}
		}
		if dropped[c] {
			s.log.Info("staged change discarded: its call did not run", "thread", thread, "call_id", c.call)
			continue
		}
		keep = append(keep, c)
	}
	s.keepStagedLocked(thread, keep)
	return committed
}

// commitStagedLocked writes c, whose call ran, and reports whether it
// did; s.mu is held.
func (s *Store) commitStagedLocked(thread string, c *stagedChange) bool {
	if c.retain != "" {
		left := s.ttl - s.now().Sub(c.at)
		if left <= 0 {
			return false
		}
		if _, err := s.retainLocked(thread, c.retain, c.content, left); err != nil {
			s.log.Warn("a retention whose call ran could not be written", "thread", thread, "call_id", c.call, "err", err)
			return false
		}
		return true
	}
	if err := s.commitEditLocked(thread, c.edits); err != nil {
		s.log.Warn("an edit whose call ran could not be written", "thread", thread, "call_id", c.call, "err", err)
		return false
	}
	s.log.Info("hpatch applied", "thread", thread, "call_id", c.call, "scripts", len(c.edits))
	return true
}

// commitEditLocked writes edits if every script on disk is still the
// version the edit was checked against; s.mu is held.
func (s *Store) commitEditLocked(thread string, edits []hpatch.Edit) error {
	ts, err := s.threadLocked(thread, false)
	if err != nil {
		return threadMissing(err, scriptref.FormatRef(edits[0].ID))
	}
	defer s.releaseLocked(ts)
	for _, e := range edits {
		data, err := ReadScript(ts.scripts, e.ID)
		if err != nil {
			return err
		}
		if !bytes.Equal(data, e.Old) {
			return fmt.Errorf("%s changed since the edit was checked; the edit was not applied", scriptref.FormatRef(e.ID))
		}
	}
	return s.commitLocked(ts, edits)
}
