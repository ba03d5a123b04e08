package history

import (
	"context"

	"github.com/tidwall/gjson"

	"hpatch-router/retain"
	"hpatch-router/router/request"
)

// restoreScripts puts back the retained scripts of thread whose hour has
// not passed, from its journal (retain.Store.Restore), when something
// took them: a restart, on the thread's first request since the router
// started (or since its journal was last loaded), or a directory removed
// while the router ran, alone or with the runtime root, when the runtime
// has just created the thread's directory again (created). Either way
// they are restored once.
func (s *Stage) restoreScripts(ctx context.Context, thread string, created bool) {
	if s.scripts == nil {
		return
	}
	history, first := s.store.History(thread)
	if !first && !created || len(history) == 0 {
		return
	}
	if n := s.scripts.Restore(ctx, thread, history); n > 0 {
		s.metrics.RestoredScripts(n)
		if created {
			s.log.Info("restored the retained scripts of a thread whose directory was made again", "thread", thread, "scripts", n)
		}
	}
}

// settle tells the retained-script store what became of the calls whose
// retentions and edits it staged (DESIGN §8, "When an edit counts"), from
// the input of a request of their thread: a call whose output is there
// and is not Codex's "aborted" ran, and its change is written; an aborted
// call, or one no longer in the input, is discarded with what was staged
// on top of it. The calls come from the request's one walk of its input
// (request.Parse) and are read only when the thread has staged changes.
// While a response of the thread still streams, a call missing from the
// input may be one of its own, so nothing is taken as gone.
func (s *Stage) settle(ctx context.Context, thread string, req *request.Parsed, streaming bool) {
	if s.scripts == nil || !s.scripts.Staged(thread) {
		return
	}
	calls := make(map[string]bool, len(req.ToolCalls))
	for _, c := range req.ToolCalls {
		calls[c.Get("call_id").String()] = true
	}
	outputs := ranCalls(req)
	committed := s.scripts.Settle(ctx, thread, func(callID string) retain.CallState {
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
	s.store.MarkKnown(thread, ids)
	s.metrics.Committed(len(committed))
	s.commit(thread, committed)
}

// abortedOutput is the output Codex records for a call it did not run
// because the turn was interrupted.
const abortedOutput = "aborted"

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
