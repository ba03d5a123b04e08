package router

import (
	"context"
	"sync"

	"github.com/tidwall/gjson"

	"hpatch-router/retain"
	"hpatch-router/router/request"
)

// settle tells the retained-script store what became of the calls whose
// retentions and edits it staged (DESIGN §8, "When an edit counts"), from
// the input of a request of their thread: a call whose output is there
// and is not Codex's "aborted" ran, and its change is written; an aborted
// call, or one no longer in the input, is discarded with what was staged
// on top of it. The calls come from the request's one walk of its input
// (request.Parse) and are read only when the thread has staged changes; a
// body that did not parse settles nothing. While a response of the thread
// still streams, a call missing from the input may be one of its own, so
// nothing is taken as gone.
func (rt *Router) settle(ctx context.Context, thread string, req *request.Parsed) {
	sc := rt.cfg.scripts
	if sc == nil || thread == "" || req == nil || !sc.Staged(thread) {
		return
	}
	calls := make(map[string]bool, len(req.ToolCalls))
	for _, c := range req.ToolCalls {
		calls[c.Get("call_id").String()] = true
	}
	outputs := ranCalls(req)
	streaming := rt.streams.active(thread)
	committed := sc.Settle(ctx, thread, func(callID string) retain.CallState {
		if st, ok := outputs[callID]; ok {
			return st
		}
		if calls[callID] || streaming {
			return retain.CallPending
		}
		return retain.CallGone
	})
	if len(committed) == 0 {
		return
	}
	ids := make([]string, len(committed))
	for i, c := range committed {
		ids[i] = c.Call
	}
	rt.replay.MarkKnown(thread, ids)
	rt.metrics.committed(len(committed))
	if err := rt.replay.Commit(thread, committed); err != nil {
		rt.metrics.Replay("store_error")
		rt.log.Error("cannot journal the changes written", "err", err)
	}
}

// restoreScripts puts back, on a thread's first request since the router
// started (or since its journal was last loaded), the retained scripts a
// restart removed whose hour has not passed (retain.Store.Restore).
func (rt *Router) restoreScripts(ctx context.Context, thread string) {
	if rt.cfg.scripts == nil || thread == "" {
		return
	}
	history, first := rt.replay.History(thread)
	if !first || len(history) == 0 {
		return
	}
	if n := rt.cfg.scripts.Restore(ctx, thread, history); n > 0 {
		rt.metrics.restoredScripts(n)
	}
}

// abortedOutput is the output Codex records for a call it did not run
// because the turn was interrupted.
const abortedOutput = "aborted"

// outputState reads a custom_tool_call_output's output: Codex's "aborted"
// (a plain string, or one text item) says the call did not run.
func outputState(out gjson.Result) retain.CallState {
	text := out.String()
	if out.IsArray() {
		items := out.Array()
		if len(items) != 1 {
			return retain.CallRan
		}
		text = items[0].Get("text").String()
	}
	if text == abortedOutput {
		return retain.CallAborted
	}
	return retain.CallRan
}

// threadStreams counts the responses of each thread being rewritten.
type threadStreams struct {
	mu sync.Mutex
	n  map[string]int
}

func (ts *threadStreams) begin(thread string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.n == nil {
		ts.n = map[string]int{}
	}
	ts.n[thread]++
}

func (ts *threadStreams) end(thread string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.n[thread]--; ts.n[thread] <= 0 {
		delete(ts.n, thread)
	}
}

func (ts *threadStreams) active(thread string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.n[thread] > 0
}
