package history

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"hpatch-router/router/request"
	"hpatch-router/router/threadstate"
)

// CodeReplayMismatch is the stable error code of a MismatchError.
const CodeReplayMismatch = "replay_mismatch"

// MismatchError: the request echoes a carrier whose input differs from
// every one the router emitted for that call, so the model's original
// call cannot be restored. The router answers it as a 409.
type MismatchError struct {
	CallID string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the exec call %q in the request input matches no carrier the router sent for it; "+
		"the model's original call cannot be restored", e.CallID)
}

// restoreEdits returns the edits that replace every carrier Codex echoes
// in the request input (a custom_tool_call named exec whose call_id the
// store knows) with the model's original item, byte for byte, in body
// order. Every carrier the router sent for a call_id restores (to the
// item it stood for); a known call_id whose input matches none of them is
// an error, never a guess; so is an original item that is not valid JSON
// (the rewrite would refuse the restored body). Outputs are left
// untouched. The edits are applied where the body is sent (as pieces):
// the body is never copied to restore it. The store is asked about every
// call on every request, so a call restored, refused or unknown before is
// judged afresh.
func (s *Stage) restoreEdits(thread string, req *request.Parsed) ([]request.Edit, error) {
	if len(req.ExecCalls) == 0 {
		return nil, nil
	}
	var (
		edits    []request.Edit
		mismatch string
		lost     []string // router-shaped carriers the store has no entry for
	)
	s.store.View(thread, func(v threadstate.View) {
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
		s.metrics.Replay("unrestorable")
		s.log.Warn("a carrier this router sent cannot be restored (its replay journal entry is gone); the model sees the exec carrier",
			"thread", thread, "call_id", id)
	}
	if mismatch != "" {
		s.metrics.Replay("mismatch")
		return nil, &MismatchError{CallID: mismatch}
	}
	for _, e := range edits {
		if !gjson.ValidBytes(e.Repl) {
			return nil, &request.Error{Code: request.CodeInvalidJSON, Message: "request body is not valid JSON"}
		}
	}
	for range edits {
		s.metrics.Replay("restored")
	}
	return edits, nil
}

// routerShaped reports whether a Code Mode exec input is a carrier this
// router makes for a shell call: it runs the `shell` helper through
// exec_command. A model's own exec does not call the helper.
func routerShaped(input string) bool {
	return strings.Contains(input, "tools.exec_command(") && strings.Contains(input, `"cmd":"shell `)
}
