package retain

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"time"

	"hpatch-router/hpatch"
	"hpatch-router/scriptref"
)

// The model's history is the truth (DESIGN §8): a script's current version
// is its retained body, then every edit on it whose call ran, in the order
// the model was told of them. The router hands that history to Reconcile
// (the changes only the journal still knows first, then the ones the
// request shows), and the store makes the scripts on disk those versions.
// Patch application is deterministic, so an edit replayed from its hpatch
// input writes what its report said at stream time; where no source gives
// the version the model was told (its retention is gone, or an edit no
// longer writes what its report said), the script is marked unknown and a
// rerun or an edit of it is refused with one line.

// maxUnknownPerThread bounds the scripts a thread may have marked unknown.
const maxUnknownPerThread = 1024

// scriptVersion is a script as a history leaves it: its content and when
// it was retained, or why its version is unknown.
type scriptVersion struct {
	content []byte
	at      time.Time
	unknown string
}

// retainSum is the Sum of a retention: the editsSum of the one version it
// wrote, so a journaled body that changed is seen.
func retainSum(id string, content []byte) string {
	return editsSum([]hpatch.Edit{{ID: id, New: content}})
}

// RetainSum is the Sum a retention of content as artifact id carries.
func RetainSum(id, content string) string { return retainSum(id, []byte(content)) }

// foldHistory applies history in order and returns the version of each
// script it names and the changes the model was told of, with their Sum
// set (an edit whose versions are unknown has none, so a journal that
// keeps it keeps them unknown). A
// change whose call appeared before counts once. An edit is checked
// against what the model was told: its Report when it has one (the
// request shows the call), else its Sum (the journal knows it). An edit
// that does not apply, or writes other versions than it was told, leaves
// the scripts it names unknown, and so does an edit of an unknown script.
func foldHistory(history []Committed) (map[string]*scriptVersion, []Committed) {
	out := map[string]*scriptVersion{}
	seen := map[string]bool{}
	var applied []Committed
	for _, c := range history {
		if seen[c.Call] {
			continue
		}
		seen[c.Call] = true
		if c.Retain != "" {
			v := &scriptVersion{content: []byte(c.Content), at: c.At}
			if ref, ok := scriptref.ScriptReference(c.Content); ok {
				v = rerunVersion(out[ref], ref, c.At) // a rerun retains the body it ran
			}
			if v.unknown == "" && c.Sum != "" && c.Sum != retainSum(c.Retain, v.content) {
				v = &scriptVersion{unknown: "its journaled body does not match its checksum"}
			} else if v.unknown == "" {
				c.Content, c.Sum = string(v.content), retainSum(c.Retain, v.content)
				applied = append(applied, c)
			}
			out[c.Retain] = v
			continue
		}
		applied = append(applied, foldEdit(out, c))
	}
	return out, applied
}

// rerunVersion is what a rerun of ref retained, given ref's version then.
func rerunVersion(ref *scriptVersion, id string, at time.Time) *scriptVersion {
	switch {
	case ref == nil:
		return &scriptVersion{unknown: "the script it reran, " + scriptref.FormatRef(id) + ", is not in the conversation or the journal"}
	case ref.unknown != "":
		return &scriptVersion{unknown: ref.unknown}
	}
	return &scriptVersion{content: ref.content, at: at}
}

// foldEdit applies edit c to the versions in out and returns c with the
// Sum of what it wrote, or none when it did not write what the model was
// told.
func foldEdit(out map[string]*scriptVersion, c Committed) Committed {
	p, err := ParsePatch(c.Patch)
	if err != nil || p.Workspace {
		c.Sum = ""
		return c // not a script edit: it changed no script
	}
	baseline := map[string][]byte{}
	reason := ""
	for _, sec := range p.Sections {
		switch v := out[sec.ID]; {
		case v == nil:
			reason = "the conversation and the journal no longer hold " + scriptref.FormatRef(sec.ID) + " as it was retained"
		case v.unknown != "":
			reason = v.unknown
		default:
			baseline[sec.ID] = v.content
		}
		if reason != "" {
			break
		}
	}
	var edits []hpatch.Edit
	if reason == "" {
		edits, err = applyPatch(p, baseline)
		switch {
		case err != nil:
			reason = "an edit the model was told of (call " + c.Call + ") no longer applies"
		case c.Report != "" && hpatch.FormatReport(edits) != c.Report:
			reason = "an edit (call " + c.Call + ") no longer writes what its report said"
		case c.Report == "" && c.Sum == "":
			reason = "the version an edit (call " + c.Call + ") wrote was not known when it was journaled"
		case c.Report == "" && editsSum(edits) != c.Sum:
			reason = "a journaled edit (call " + c.Call + ") no longer writes what it wrote"
		}
	}
	if reason != "" {
		for _, sec := range p.Sections {
			out[sec.ID] = &scriptVersion{unknown: reason}
		}
		c.Sum = ""
		return c
	}
	for _, e := range edits {
		out[e.ID].content = e.New
	}
	c.Sum = editsSum(edits)
	return c
}

// Reconcile makes thread's scripts the versions history gives (the
// thread's changes whose calls ran, in the order the model was told of
// them: what only the journal knows, then what the request shows; an
// edit the request shows carries the Report the model read). A script
// with a staged change keeps it. A missing script is written with what
// is left of its hour, one that differs is replaced, one whose hour has
// passed is removed when it is that version; a script whose version no
// source gives is marked unknown, and Resolve and StageEdit refuse it. It
// returns the changes the model was told of, for the journal (with their
// Sum; an edit whose versions are unknown has none), and the scripts
// marked unknown with the reason (logged, without content).
func (s *Store) Reconcile(ctx context.Context, thread string, history []Committed) ([]Committed, map[string]string) {
	if ctx.Err() != nil || checkThread(thread) != nil || len(history) == 0 {
		return nil, nil
	}
	versions, applied := foldHistory(history)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil
	}
	now := s.now()
	unknown := map[string]string{}
	for id, v := range versions {
		if c, _ := s.stagedLocked(thread, id); c != nil {
			continue
		}
		if v.unknown == "" {
			left := s.ttl - now.Sub(v.at)
			if left <= 0 {
				v.unknown = "it was retained more than " + s.ttl.String() + " ago and has expired"
			}
			if _, err := s.syncScriptLocked(thread, id, v.content, left, true); err != nil && v.unknown == "" {
				v.unknown = "it could not be written: " + err.Error()
			}
		}
		if v.unknown != "" {
			unknown[id] = v.unknown
		}
		s.markLocked(thread, id, v.unknown)
	}
	for id, why := range unknown {
		s.log.Warn("a retained script's version cannot be produced; reruns of it are refused",
			"thread", thread, "ref", scriptref.FormatRef(id), "reason", why)
	}
	return applied, unknown
}

// syncScriptLocked makes artifact id of thread content, with left of its
// hour, and reports whether it wrote the file: a missing one is written,
// one that differs is replaced when replace is set (else left alone: not
// the version the caller knows, and neither is a script this store wrote),
// one that is content is owned so it expires on time, or removed when
// none of its hour is left; s.mu is held.
func (s *Store) syncScriptLocked(thread, id string, content []byte, left time.Duration, replace bool) (bool, error) {
	// Opened first: a thread directory removed while the router ran (alone,
	// or with the runtime root) drops the record of what this store wrote.
	ts, err := s.threadLocked(thread, left > 0)
	if errors.Is(err, fs.ErrNotExist) && left <= 0 {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer s.releaseLocked(ts)
	if !replace && ts.owned[id] != nil {
		return false, nil // this store wrote it
	}
	data, err := ReadScript(ts.scripts, id)
	same := err == nil && bytes.Equal(data, content)
	switch {
	case errors.Is(err, fs.ErrNotExist) && left > 0:
		_, err := s.retainLocked(thread, id, content, left)
		return err == nil, err
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case !same && (left <= 0 || !replace):
		return false, nil // not the version the history gives: not ours to remove
	case !same:
		if err := s.commitLocked(ts, []hpatch.Edit{{ID: id, Old: data, New: content}}); err != nil {
			return false, err
		}
		s.log.Info("retained script brought to the version the conversation shows", "thread", thread, "ref", scriptref.FormatRef(id))
	}
	a := ts.owned[id]
	if a == nil {
		fi, err := ts.scripts.Lstat(id)
		if err != nil {
			return false, err
		}
		a = &artifact{file: fi, sum: sha256.Sum256(content)}
	} else {
		a.timer.Stop()
	}
	if left <= 0 {
		delete(ts.owned, id)
		return false, ts.removeOwned(id, a)
	}
	a.timer = s.afterFunc(left, func() { s.expire(ts, id, a) })
	ts.owned[id] = a
	return !same, nil
}
