package retain

import (
	"context"
	"crypto/sha256"
	"fmt"

	"hpatch-router/hpatch"
	"hpatch-router/scriptref"
)

// Apply runs one hpatch edit against thread's retained scripts and returns
// the report the model sees. It parses the edit, reads every named script
// once as the baseline, verifies and applies all sections in memory, then
// writes every new version to a temporary file and renames each into
// place. Nothing changes unless every step before the renames succeeds; if
// a rename fails, the scripts already renamed are restored from the
// baseline. Errors are one line; rejected edits are *PatchError values.
func (s *Store) Apply(ctx context.Context, thread, patch string) (string, error) {
	p, err := parseEdit(ctx, thread, patch)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", ErrClosed
	}
	c, err := s.checkEditLocked(thread, p, false)
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := s.commitEditLocked(thread, c.edits); err != nil {
		return "", err
	}
	s.log.Info("hpatch applied", "thread", thread, "scripts", len(c.edits))
	return hpatch.FormatReport(c.edits), nil
}

// commitLocked writes edits: all temporary files first, then the renames.
func (s *Store) commitLocked(ts *threadStore, edits []hpatch.Edit) error {
	temps := make([]string, 0, len(edits))
	removeTemps := func(from int) {
		for _, t := range temps[from:] {
			ts.scripts.Remove(t)
		}
	}
	for _, e := range edits {
		t, err := writeTemp(ts.scripts, e.New)
		if err != nil {
			removeTemps(0)
			return fmt.Errorf("write %s: %w; nothing was changed", scriptref.FormatRef(e.ID), err)
		}
		temps = append(temps, t)
	}
	for i, e := range edits {
		if err := ts.scripts.Rename(temps[i], e.ID); err != nil {
			removeTemps(i)
			s.restoreLocked(ts, edits[:i])
			return fmt.Errorf("replace %s: %w; the edit was rolled back", scriptref.FormatRef(e.ID), Pathless(err))
		}
	}
	for _, e := range edits {
		s.trackLocked(ts, e.ID, e.New)
	}
	return nil
}

// restoreLocked puts the baseline of already renamed edits back.
func (s *Store) restoreLocked(ts *threadStore, done []hpatch.Edit) {
	for _, e := range done {
		t, err := writeTemp(ts.scripts, e.Old)
		if err == nil {
			err = ts.scripts.Rename(t, e.ID)
		}
		if err != nil {
			s.log.Error("hpatch rollback failed", "thread", ts.thread, "ref", scriptref.FormatRef(e.ID), "err", err)
		}
	}
}

// trackLocked updates the identity of an owned artifact after an edit so
// expiry and cleanup still recognise it.
func (s *Store) trackLocked(ts *threadStore, id string, content []byte) {
	a := ts.owned[id]
	if a == nil {
		return
	}
	fi, err := ts.scripts.Lstat(id)
	if err != nil {
		return
	}
	a.file, a.sum = fi, sha256.Sum256(content)
}
