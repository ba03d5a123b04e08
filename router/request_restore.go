package router

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"hpatch-router/router/request"
	"hpatch-router/router/threadstate"
)

// codeReplayMismatch: the request echoes a carrier whose input differs from
// the one the router emitted for that call.
const codeReplayMismatch = "replay_mismatch"

// restoreEdits returns the edits that replace every carrier Codex echoes
// in the request input (a custom_tool_call named exec whose call_id the
// store knows) with the model's original item, byte for byte, in body
// order. Every carrier the router sent for a call_id restores (to the
// item it stood for); a known call_id whose input matches none of them is
// an error, never a guess; so is an original item that is not valid JSON (the rewrite
// would refuse the restored body). Outputs are left untouched. The edits
// are applied where the body is sent (splice, as pieces): the body is
// never copied to restore it. The store is asked about every call on
// every request, so a call restored, refused or unknown before is judged
// afresh.
func (rt *Router) restoreEdits(thread string, req *request.Parsed) ([]request.Edit, error) {
	if thread == "" || len(req.ExecCalls) == 0 {
		return nil, nil
	}
	var (
		edits    []request.Edit
		mismatch string
	)
	var lost []string // router-shaped carriers the store has no entry for
	rt.replay.View(thread, func(v threadstate.View) {
		for _, c := range req.ExecCalls {
			id := c.CallID
			if _, known := v.Get(id); !known {
				if routerShaped(c.Get("input").String()) && v.NoteLost(id) {
					lost = append(lost, id)
				}
				continue
			}
			e, ok := v.Match(id, c.Get("input").String())
			if !ok {
				mismatch = id
				return
			}
			edits = append(edits, request.Edit{Start: c.Index, End: c.Index + len(c.Raw), Repl: []byte(e.Item)})
		}
	})
	for _, id := range lost {
		rt.metrics.Replay("unrestorable")
		rt.log.Warn("a carrier this router sent cannot be restored (its replay journal entry is gone); the model sees the exec carrier",
			"thread", thread, "call_id", id)
	}
	if mismatch != "" {
		rt.metrics.Replay("mismatch")
		return nil, &Error{
			Status: http.StatusConflict,
			Type:   "invalid_request_error",
			Code:   codeReplayMismatch,
			Message: fmt.Sprintf("the exec call %q in the request input matches no carrier the router sent for it; "+
				"the model's original call cannot be restored", mismatch),
		}
	}
	for _, e := range edits {
		if !gjson.ValidBytes(e.Repl) {
			return nil, invalidRequest(request.CodeInvalidJSON, "request body is not valid JSON")
		}
	}
	for range edits {
		rt.metrics.Replay("restored")
	}
	return edits, nil
}

// routerShaped reports whether a Code Mode exec input is a carrier this
// router makes for a shell call: it runs the `shell` helper through
// exec_command. A model's own exec does not call the helper.
func routerShaped(input string) bool {
	return strings.Contains(input, "tools.exec_command(") && strings.Contains(input, `"cmd":"shell `)
}
