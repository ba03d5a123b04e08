package router

import (
	"cmp"
	"context"
	"mime"
	"net"
	"net/http"
	"strings"

	"hpatch-router/ident"
	"hpatch-router/router/history"
	"hpatch-router/router/request"
	"hpatch-router/router/response"
	"hpatch-router/rows"
)

// serveResponses is the proxy core of POST /v1/responses and, with
// compact, of POST /v1/responses/compact (Codex's remote compaction). As
// httputil.ReverseProxy has Rewrite and ModifyResponse, it has two hooks,
// named methods that call the stages directly: rewriteRequest, once per
// request, and the response session (package response), once per
// upstream event (relaySSE) or on the whole output (relayJSON). Around
// them it only proxies: prepare the thread's runtime (thread_runtime.go),
// read the body, bounded (request_read.go), forward (proxy.go) and relay.
// A compaction's input is the conversation too, so its carriers are
// restored the same way (the compaction model must see what the model
// emitted, not carriers), but its tools are not rewritten and its
// response is relayed as it is.
func (rt *Router) serveResponses(w http.ResponseWriter, r *http.Request, compact bool) {
	thread := rt.threadID(r)
	created, runtimeErr := rt.runtime.prepare(r.Context(), thread)
	if rt.cfg.mode == ModePassthrough || rt.encodedRequest(r) {
		rt.forward(w, r, nil)
		return
	}
	held := &lease{h: &rt.held}
	defer held.release()
	body, err := readBounded(r.Body, r.ContentLength, rt.maxRequestBody, held)
	if err != nil {
		rt.failed(w, r, readingBody, err)
		return
	}
	out, err := rt.rewriteRequest(r.Context(), inbound{thread: thread, body: body, created: created, compact: compact})
	if err != nil {
		rt.answerError(w, thread, err)
		return
	}
	if out.req == nil {
		rt.forward(w, r, out.body)
		return
	}
	resp, cancel, err := rt.roundTrip(r.Context(), func(ctx context.Context) (*http.Request, error) {
		return rt.outboundRequest(ctx, r, out.body, out.facts.Owned)
	})
	if err != nil {
		rt.failed(w, r, startingUpstream, err)
		return
	}
	defer cancel(nil)
	defer resp.Body.Close()
	if !out.facts.Owned || !rt.rewritable(resp) {
		rt.relayRaw(w, r, resp)
		return
	}
	s := response.New(r.Context(), &rt.rewrite, thread, out.facts, readTurnWorkspace(out.req, r.Header))
	s.RuntimeReady(runtimeErr)
	if thread != "" {
		rt.streams.begin(thread)
		defer rt.streams.end(thread)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/event-stream":
		rt.relaySSE(w, r, resp, s)
	case "application/json":
		rt.relayJSON(w, r, resp, s)
	default:
		rt.relayRaw(w, r, resp)
	}
}

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

// rewritable reports an upstream response the response rewrite may read:
// a success, not content-encoded (one that is is counted and relayed as
// it is).
func (rt *Router) rewritable(resp *http.Response) bool {
	if resp.StatusCode/100 != 2 {
		return false
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		rt.metrics.fault("encoded_response_passthrough")
		rt.log.Warn("upstream response is content-encoded; relaying it without rewrite", "encoding", ce)
		return false
	}
	return true
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

// encodedRequest reports (and counts) a content-encoded request body: a
// compressed body (zstd with ChatGPT login, FACTS §6.1) cannot be rewritten
// or restored without decoding it, so it is relayed unchanged.
func (rt *Router) encodedRequest(r *http.Request) bool {
	ce := r.Header.Get("Content-Encoding")
	if ce == "" || strings.EqualFold(ce, "identity") {
		return false
	}
	rt.metrics.fault("encoded_request_passthrough")
	rt.log.Warn("request body is content-encoded; forwarding it unchanged", "path", r.URL.Path, "encoding", ce)
	return true
}

// threadID is the request's valid `thread-id` header, or "".
func (rt *Router) threadID(r *http.Request) string {
	t := r.Header.Get("Thread-Id")
	if t == "" {
		return ""
	}
	if err := ident.Thread(t); err != nil {
		rt.log.Warn("ignoring an invalid thread-id header", "err", err)
		return ""
	}
	return t
}

// answerError writes err as the router's own error response.
func (rt *Router) answerError(w http.ResponseWriter, thread string, err error) {
	e := requestError(err)
	rt.metrics.routerError(e.Code)
	rt.cfg.observers.Observe(RejectionEvent{Thread: thread, Code: e.Code, Reason: rows.OneLineSpaced(e.Error())})
	rt.log.Info("request refused", "status", e.Status, "code", e.Code, "msg", e.Message)
	writeErrorBody(w, e.Status, e.Body())
}
