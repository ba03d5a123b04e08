package router

import (
	"bytes"
	"fmt"
	"net/http"
	"unsafe"
)

// CodeReplayMismatch: the request echoes a carrier whose input differs from
// the one the router emitted for that call.
const CodeReplayMismatch = "replay_mismatch"

// restoreEdits returns the edits that replace every carrier Codex echoes
// in the request input (a custom_tool_call named exec whose call_id the
// store knows) with the model's original item, byte for byte, in body
// order. Every carrier the router sent for a call_id restores (to the
// item it stood for); a known call_id whose input matches none of them is
// an error, never a guess; so is an original item that is not valid JSON (the rewrite
// would refuse the restored body). Outputs are left untouched. The edits
// are applied where the body is sent (splice, as pieces): the body is
// never copied to restore it.
//
// Most requests hold nothing to restore, so the walk is skipped unless a
// byte scan finds a call_id the thread has an entry for; a thread's body
// that repeats its last one is walked only past that one's input
// (replay_resume.go).
func (rt *Router) restoreEdits(thread string, body []byte) ([]edit, error) {
	if thread == "" || !bytes.Contains(body, []byte(`"custom_tool_call"`)) {
		return nil, nil
	}
	var (
		edits    []edit
		mismatch string
	)
	rt.replay.lookup(thread, func(t *threadReplay) {
		w, ok := rt.restoreWalk.walk(thread, body, func() bool { return mentionsKnownCall(body, t.get) })
		if !ok {
			return
		}
		for _, c := range w.calls {
			if _, known := t.get(c.id); !known {
				continue
			}
			e, ok := t.match(c.id, c.carrier)
			if !ok {
				mismatch = c.id
				return
			}
			edits = append(edits, edit{c.start, c.end, unsafe.Slice(unsafe.StringData(e.Item), len(e.Item))})
		}
	})
	if mismatch != "" {
		rt.metrics.replay("mismatch")
		return nil, &Error{
			Status: http.StatusConflict,
			Type:   "invalid_request_error",
			Code:   CodeReplayMismatch,
			Message: fmt.Sprintf("the exec call %q in the request input matches no carrier the router sent for it; "+
				"the model's original call cannot be restored", mismatch),
		}
	}
	for _, e := range edits {
		if !validJSON(e.repl) {
			return nil, invalidRequest(CodeInvalidJSON, "request body is not valid JSON")
		}
	}
	for range edits {
		rt.metrics.replay("restored")
	}
	return edits, nil
}

// mentionsKnownCall reports whether body may hold a call the thread has an
// entry for: it scans for "call_id" keys and looks their values up. It
// errs on the side of true (a value with escapes, a key it cannot read),
// so it never hides a carrier from the parse that follows.
func mentionsKnownCall(body []byte, get func(string) (replayEntry, bool)) bool {
	key := []byte(`"call_id"`)
	for {
		i := bytes.Index(body, key)
		if i < 0 {
			return false
		}
		body = skipJSONSpace(body[i+len(key):])
		if len(body) == 0 || body[0] != ':' {
			continue // the text "call_id" somewhere else
		}
		body = skipJSONSpace(body[1:])
		if len(body) == 0 || body[0] != '"' {
			continue
		}
		body = body[1:]
		end := bytes.IndexByte(body, '"')
		if end < 0 {
			return true
		}
		id := body[:end]
		if bytes.IndexByte(id, '\\') >= 0 {
			return true // escaped: let the parse decide
		}
		if _, ok := get(string(id)); ok { // no allocation for the lookup
			return true
		}
		body = body[end+1:]
	}
}

func skipJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}
