package router

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"hpatch-router/retain"
	"hpatch-router/router/request"
	"hpatch-router/router/response"
	"hpatch-router/router/threadstate"
	"hpatch-router/scriptref"
)

// The model's history is the truth (DESIGN §8): a script's version is its
// retained body, then every hpatch call on it whose output the request
// carries as not aborted, in history order. settle writes the changes
// staged in this router; reconcileHistory covers what nothing staged (a
// restart lost it, or a call sent again was answered from its earlier
// carrier) and what the journal lost or holds wrongly: when a request
// shows a change that ran and the thread does not know it yet, the
// versions are computed again from the request's history (the journal's
// older changes first) and the scripts are made those versions
// (retain.Store.Reconcile). A thread whose changes are all known costs a
// map lookup per carrier of a changing call.

// reconcileHistory brings the thread's scripts to what the request's
// history told the model, when the request shows a change that ran and is
// not known to the thread.
func (rt *Router) reconcileHistory(ctx context.Context, thread string, req *request.Parsed) {
	sc := rt.cfg.scripts
	if sc == nil || thread == "" || req == nil || len(req.ExecCalls) == 0 {
		return
	}
	changing := rt.unknownChanges(thread, req)
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
	rt.replay.MarkQuiet(thread, aborted)
	if len(done) == 0 {
		return
	}
	applied, unknown := sc.Reconcile(ctx, thread, rt.historyOf(thread, req, ran))
	rt.journalApplied(thread, applied)
	// Known from now on, also a call whose carrier no entry restores:
	// the next request does not look at it again.
	rt.replay.MarkKnown(thread, done)
	if len(unknown) > 0 {
		rt.metrics.Replay("version_unknown")
	}
}

// unknownChanges returns the calls of req whose carriers tell of a
// retention or an edit and that the thread does not know; the others are
// recorded as quiet.
func (rt *Router) unknownChanges(thread string, req *request.Parsed) []string {
	var out []string
	tr := rt.cfg.translator
	rt.replay.View(thread, func(v threadstate.View) {
		for _, c := range req.ExecCalls {
			id := c.CallID
			if v.Seen(id) {
				continue
			}
			carrier := c.Get("input").String()
			if strings.HasPrefix(carrier, response.ReportPrefix) || tr.Retains(carrier, scriptref.FormatRef(id)) {
				out = append(out, strings.Clone(id))
			} else {
				v.MarkQuiet(id)
			}
		}
	})
	return out
}

// ranCalls reads the state of every call whose output req carries. A
// call sent again has several outputs: it ran if one of them says so.
func ranCalls(req *request.Parsed) map[string]retain.CallState {
	out := make(map[string]retain.CallState, len(req.ToolOutputs))
	for _, o := range req.ToolOutputs {
		id := o.Get("call_id").String()
		if out[id] != retain.CallRan {
			out[id] = outputState(o.Get("output"))
		}
	}
	return out
}

// historyOf returns the thread's changes whose calls ran, in the order
// the model was told of them: the journal's changes of calls the request
// no longer shows as run (compacted, or shown again only as aborted),
// then the retentions and edits of req's carriers whose
// output is there and not aborted (each restored to the model's call
// through the replay store).
func (rt *Router) historyOf(thread string, req *request.Parsed, ran map[string]retain.CallState) []retain.Committed {
	var shown []retain.Committed
	shownRan := map[string]bool{}
	tr := rt.cfg.translator
	rt.replay.View(thread, func(v threadstate.View) {
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
			ch, ok := changeOf(tr, gjson.Parse(e.Item), id, carrier, e.At)
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
func changeOf(tr translator, item gjson.Result, id, carrier string, at time.Time) (retain.Committed, bool) {
	if at.IsZero() {
		at = time.Now() // a journal from before entries kept their time
	}
	input := item.Get("input").String()
	switch item.Get("name").String() {
	case response.ToolShell:
		if tr.Retains(carrier, scriptref.FormatRef(id)) {
			return retain.Committed{Call: strings.Clone(id), At: at, Retain: strings.Clone(id), Content: input}, true
		}
	case response.ToolHPatch:
		if report, ok := printedText(carrier); ok && strings.HasPrefix(report, scriptref.RefPrefix) {
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

// printedText is the text a response.PrintCarrier carrier prints.
func printedText(carrier string) (string, bool) {
	s, ok := strings.CutPrefix(carrier, "text(")
	if !ok {
		return "", false
	}
	if s, ok = strings.CutSuffix(s, ");"); !ok {
		return "", false
	}
	var text string
	if json.Unmarshal([]byte(s), &text) != nil {
		return "", false
	}
	return text, true
}

// journalApplied journals the changes a reconcile found that the
// thread's journal does not hold yet, so a restart or a compaction of the
// conversation keeps them (an edit whose versions no source gave is kept
// without its Sum, so its scripts stay unknown).
func (rt *Router) journalApplied(thread string, applied []retain.Committed) {
	var missing []retain.Committed
	rt.replay.View(thread, func(v threadstate.View) {
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
	if len(missing) == 0 {
		return
	}
	if err := rt.replay.Commit(thread, missing); err != nil {
		rt.metrics.Replay("store_error")
		rt.log.Error("cannot journal the changes written", "err", err)
	}
}
