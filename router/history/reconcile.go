package history

import (
	"context"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"hpatch-router/retain"
	"hpatch-router/router/request"
	"hpatch-router/router/response"
	"hpatch-router/router/threadstate"
	"hpatch-router/scriptref"
)

// settle writes the changes staged in this router; reconcile covers what
// nothing staged (a restart lost it, or a call sent again was answered
// from its earlier carrier) and what the journal lost or holds wrongly:
// when a request shows a change that ran and the thread does not know it
// yet, the versions are computed again from the request's history (the
// journal's older changes first) and the scripts are made those versions
// (retain.Store.Reconcile). A thread whose changes are all known costs a
// map lookup per carrier of a changing call.

// reconcile brings the thread's scripts to what the request's history
// told the model, when the request shows a change that ran and is not
// known to the thread.
func (s *Stage) reconcile(ctx context.Context, thread string, req *request.Parsed) {
	if s.scripts == nil || len(req.ExecCalls) == 0 {
		return
	}
	changing := s.unknownChanges(thread, req)
	if len(changing) == 0 {
		return
	}
	ran := ranCalls(req)
	var aborted, done []string
	for _, id := range changing {
		switch ran[id] {
		case retain.CallAborted:
			aborted = append(aborted, id)
		case retain.CallRan:
			done = append(done, id)
		}
	}
	s.store.MarkQuiet(thread, aborted)
	if len(done) == 0 {
		return
	}
	applied, unknown := s.scripts.Reconcile(ctx, thread, s.historyOf(thread, req, ran))
	s.journalApplied(thread, applied)
	// Known from now on, also a call whose carrier no entry restores:
	// the next request does not look at it again.
	s.store.MarkKnown(thread, done)
	if len(unknown) > 0 {
		s.metrics.Replay("version_unknown")
	}
}

// unknownChanges returns the calls of req whose carriers tell of a
// retention or an edit and that the thread does not know; the others are
// recorded as quiet.
func (s *Stage) unknownChanges(thread string, req *request.Parsed) []string {
	var out []string
	s.store.View(thread, func(v threadstate.View) {
		for _, c := range req.ExecCalls {
			id := c.CallID
			if v.Seen(id) {
				continue
			}
			carrier := c.Get("input").String()
			if strings.HasPrefix(carrier, response.ReportPrefix) || s.tr.Retains(carrier, scriptref.FormatRef(id)) {
				out = append(out, strings.Clone(id))
			} else {
				v.MarkQuiet(id)
			}
		}
	})
	return out
}

// historyOf returns the thread's changes whose calls ran, in the order
// the model was told of them: the journal's changes of calls the request
// no longer shows as run (compacted, or shown again only as aborted),
// then the retentions and edits of req's carriers whose output is there
// and not aborted (each restored to the model's call through the thread
// state).
func (s *Stage) historyOf(thread string, req *request.Parsed, ran map[string]retain.CallState) []retain.Committed {
	var shown []retain.Committed
	shownRan := map[string]bool{}
	s.store.View(thread, func(v threadstate.View) {
		for _, c := range req.ExecCalls {
			id := c.CallID
			if ran[id] != retain.CallRan {
				continue
			}
			carrier := c.Get("input").String()
			e, ok := v.Match(id, carrier)
			if !ok {
				continue
			}
			ch, ok := s.changeOf(gjson.Parse(e.Item), id, carrier, e.At)
			if ok {
				shown = append(shown, ch)
				shownRan[ch.Call] = true
			}
		}
		var history []retain.Committed
		journaled := map[string]retain.Committed{}
		for c := range v.Commits() {
			if !shownRan[c.Call] {
				history = append(history, c)
			}
			journaled[c.Call] = c
		}
		for i, c := range shown {
			// A rerun retained the body it ran: the journal has it when
			// its call was written here.
			if j, ok := journaled[c.Call]; ok && j.Retain == c.Retain && c.Retain != "" && isReference(c.Content) {
				shown[i] = j
			}
		}
		shown = append(history, shown...)
	})
	return shown
}

// changeOf is the change the model's call item made, as its carrier told
// the model: a retention of a shell call's input, or an edit of an hpatch
// call's, with the report the model read.
func (s *Stage) changeOf(item gjson.Result, id, carrier string, at time.Time) (retain.Committed, bool) {
	if at.IsZero() {
		at = time.Now() // a journal from before entries kept their time
	}
	input := item.Get("input").String()
	switch item.Get("name").String() {
	case response.ToolShell:
		if s.tr.Retains(carrier, scriptref.FormatRef(id)) {
			return retain.Committed{Call: strings.Clone(id), At: at, Retain: strings.Clone(id), Content: input}, true
		}
	case response.ToolHPatch:
		if report, ok := response.EditReport(carrier); ok {
			return retain.Committed{Call: strings.Clone(id), At: at, Patch: input, Report: report}, true
		}
	}
	return retain.Committed{}, false
}

// isReference reports whether a shell input is a sole rerun reference.
func isReference(input string) bool {
	_, ok := scriptref.ScriptReference(input)
	return ok
}

// journalApplied journals the changes a reconcile found that the
// thread's journal does not hold yet, so a restart or a compaction of the
// conversation keeps them (an edit whose versions no source gave is kept
// without its Sum, so its scripts stay unknown).
func (s *Stage) journalApplied(thread string, applied []retain.Committed) {
	var missing []retain.Committed
	s.store.View(thread, func(v threadstate.View) {
		journaled := map[string]bool{}
		for c := range v.Commits() {
			journaled[c.Call] = true
		}
		for _, c := range applied {
			if !journaled[c.Call] {
				c.Report = ""
				missing = append(missing, c)
			}
		}
	})
	if len(missing) > 0 {
		s.commit(thread, missing)
	}
}
