package retain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"hpatch-router/hpatch"
	"hpatch-router/scriptref"
)

// A router stops by removing the scripts it retained (REQ-SHELL-001), and
// a kill -9 leaves them without an owner. The router journals every change
// written (Settle's Committed values) next to the thread's replay entries;
// Restore replays that history when the thread is first used again, so a
// script whose hour has not passed is there again, original body plus
// committed edits in order, and one left behind by a kill -9 expires on
// time.

// Committed is a change written because its call ran: a retention
// (Retain, Content) or an edit (Patch, applied to the versions the history
// before it gives).
type Committed struct {
	Call    string
	At      time.Time // when it was staged; a retention's hour counts from here
	Retain  string    // the artifact a retention wrote; "" for an edit
	Content string    // the retained body
	Patch   string    // an edit's hpatch input
	Sum     string    // the versions it wrote (editsSum): a replay must arrive at the same versions
	// Report is the report the model read for an edit the request's
	// history shows ("" for one only the journal knows: Sum checks it).
	// It is not journaled.
	Report string
}

// editsSum is the hex SHA-256 of the versions an edit wrote, in order.
func editsSum(edits []hpatch.Edit) string {
	h := sha256.New()
	for _, e := range edits {
		h.Write([]byte(e.ID))
		h.Write([]byte{0})
		h.Write(e.New)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Restore puts back, from history (the thread's changes written, oldest
// first), every script of thread whose hour has not passed: a missing one
// is written and expires when its hour ends; one still there with the
// content the history gives (a kill -9 left it) is owned again, so it
// expires on time; one whose hour has passed is removed if it is still
// that content. Anything else on disk is left alone. It returns how many
// scripts it wrote back.
func (s *Store) Restore(ctx context.Context, thread string, history []Committed) int {
	if ctx.Err() != nil || checkThread(thread) != nil {
		return 0
	}
	scripts, _ := foldHistory(history)
	if len(scripts) == 0 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0
	}
	now := s.now()
	written := 0
	for id, v := range scripts {
		if c, _ := s.stagedLocked(thread, id); c != nil {
			continue
		}
		if v.unknown != "" {
			// A file a kill -9 left may be an older version: refuse it
			// until a request's history gives the version.
			s.markLocked(thread, id, v.unknown)
			s.log.Warn("a retained script's version cannot be produced from the journal; reruns of it are refused",
				"thread", thread, "ref", scriptref.FormatRef(id), "reason", v.unknown)
			continue
		}
		left := s.ttl - now.Sub(v.at)
		// A differing file is not replaced: a kill -9 between a write and
		// its journal line leaves a newer version, which the request's
		// history settles (Reconcile).
		switch ok, err := s.syncScriptLocked(thread, id, v.content, left, false); {
		case err != nil:
			s.log.Warn("cannot restore a retained script", "thread", thread, "ref", scriptref.FormatRef(id), "err", err)
		case ok:
			written++
		}
	}
	if written > 0 {
		s.log.Info("restored retained scripts from the journal", "thread", thread, "scripts", written)
	}
	return written
}
