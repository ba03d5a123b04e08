package router

import (
	"cmp"
	"context"
	"net"

	"hpatch-router/router/history"
	"hpatch-router/router/request"
)

// inbound is one request as the request hook reads it.
type inbound struct {
	thread  string
	body    []byte
	created bool // the runtime just made the thread's directory again
	compact bool
}

// outbound is what the request hook makes of a request: the body to
// send, as pieces of the one read, and, for a request whose response is
// rewritten, the parsed request and what its rewrite found.
type outbound struct {
	body  net.Buffers
	req   *request.Parsed // nil: forward body and relay the answer as it is
	facts request.Info
}

// rewriteRequest is the request hook: parse the body once
// (request.Parse), read its history against the thread's state
// (history.Stage.Apply: restore what a restart took, settle, reconcile,
// and the edits that restore the carriers Codex echoes), then rewrite it
// (request.Rewriter: find the exec owners, offer shell, hpatch and the
// declared tools) with those edits. Its error is the router's answer.
func (rt *Router) rewriteRequest(ctx context.Context, t inbound) (outbound, error) {
	req, err := request.Parse(t.body) // req is nil when err is not
	if err != nil && !t.compact {
		return outbound{}, err
	}
	restored, herr := rt.history.Apply(ctx, history.Turn{Thread: t.thread, Req: req, Created: t.created,
		Streaming: t.thread != "" && rt.streams.active(t.thread)})
	switch {
	case req == nil: // a compaction body that is not a JSON object: the upstream answers it
		return outbound{body: net.Buffers{t.body}}, nil
	case herr != nil:
		return outbound{}, herr
	case t.compact:
		return outbound{body: request.Splice(t.body, restored)}, nil
	}
	body, facts, err := rt.rewriter.Rewrite(req, rt.currentTools(), restored)
	if err != nil {
		return outbound{}, err
	}
	rt.noteRewrite(facts)
	return outbound{body: body, req: req, facts: facts}, nil
}

// noteRewrite counts and logs what the request rewrite found.
func (rt *Router) noteRewrite(facts request.Info) {
	if facts.Owned {
		rt.metrics.rewrite()
	}
	if len(facts.SkippedTools) > 0 {
		rt.log.Info("declared tools not offered: the request defines their names", "tools", facts.SkippedTools)
	}
	if facts.NoExecCommand {
		rt.log.Warn("the exec tool offers no exec_command for shell carriers to call; request passed through without shell and hpatch", "command_tool", cmp.Or(facts.OtherCommand, "none recognised"))
	}
}
