package router

import (
	"cmp"
	"context"
	"mime"
	"net"
	"net/http"
	"strings"

	"hpatch-router/ident"
	"hpatch-router/router/request"
	"hpatch-router/router/response"
	"hpatch-router/rows"
)

// serveResponses handles POST /v1/responses, and with compact POST
// /v1/responses/compact (Codex's remote compaction), in one pass, each
// stage once and in this order: prepare the thread's runtime
// (thread_runtime.go), read the body, bounded (request_read.go), parse it
// once (request.Parse), settle the thread's staged changes and bring its
// scripts to the request's history (request_settle.go,
// request_history.go), restore the carriers Codex echoes to the model's
// original calls (request_restore.go), then, for a response, rewrite the
// request (request.Rewriter), forward it (proxy.go) and rewrite the
// response (response_carrier.go, through response_sse.go or
// response_json.go). A compaction's input is the conversation too, so it
// is restored the same way (the compaction model must see what the model
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
	body, err := readBounded(r.Body, r.ContentLength, rt.cfg.maxRequestBody, held)
	if err != nil {
		rt.failed(w, r, readingBody, err)
		return
	}
	req, err := request.Parse(body)
	if err != nil && !compact {
		rt.answerError(w, thread, err)
		return
	}
	if created {
		rt.restoreCreatedThread(r.Context(), thread)
	}
	rt.restoreScripts(r.Context(), thread)
	rt.settle(r.Context(), thread, req)
	rt.reconcileHistory(r.Context(), thread, req)
	if err != nil {
		// A compaction body that is not a JSON object has nothing to
		// restore: the upstream answers it.
		rt.forward(w, r, net.Buffers{body})
		return
	}
	restored, err := rt.restoreEdits(thread, req)
	if err != nil {
		rt.answerError(w, thread, err)
		return
	}
	if compact {
		rt.forward(w, r, request.Splice(body, restored))
		return
	}
	out, facts, err := rt.rewriter.Rewrite(req, rt.currentTools(), restored)
	if err != nil {
		rt.answerError(w, thread, err)
		return
	}
	rt.noteRewrite(facts)
	resp, cancel, err := rt.roundTrip(r.Context(), func(ctx context.Context) (*http.Request, error) {
		return rt.outboundRequest(ctx, r, out, facts.Owned)
	})
	if err != nil {
		rt.failed(w, r, startingUpstream, err)
		return
	}
	defer cancel(nil)
	defer resp.Body.Close()
	if !facts.Owned || !rt.rewritable(resp) {
		rt.relayRaw(w, r, resp)
		return
	}
	s := response.New(r.Context(), &rt.rewrite, thread, facts, readTurnWorkspace(req, r.Header))
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
