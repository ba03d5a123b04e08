package router

import (
	"context"
	"mime"
	"net/http"
	"strings"

	"hpatch-router/router/response"
	"hpatch-router/rows"
)

// serveResponses is the proxy core of POST /v1/responses and, with
// compact, of POST /v1/responses/compact (Codex's remote compaction). As
// httputil.ReverseProxy has Rewrite and ModifyResponse, it has two hooks,
// named methods that call the stages directly: rewriteRequest
// (request_hook.go), once per request, and the response session (package
// response), once per upstream event (relaySSE) or on the whole output
// (relayJSON). Around them it only proxies: read the request's thread id
// and encoding (request_head.go), prepare the thread's runtime
// (thread_runtime.go; every request does, forwarded unchanged or not),
// read the body, bounded (request_read.go), forward (proxy_forward.go) and
// relay (proxy_relay.go).
//
// A compaction's input is the conversation too, so its carriers are
// restored the same way (the compaction model must see what the model
// emitted, not carriers), but its tools are not rewritten and its
// response is relayed as it is.
func (rt *Router) serveResponses(w http.ResponseWriter, r *http.Request, compact bool) {
	thread := rt.threadID(r)
	unchanged := rt.cfg.mode == ModePassthrough || rt.encodedRequest(r)
	created, runtimeErr := rt.runtime.prepare(r.Context(), thread)
	if unchanged {
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
	turn := readTurnWorkspace(out.req, r.Header)
	s := response.New(r.Context(), &rt.responseDeps, thread, out.facts, turn)
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

// answerError writes err as the router's own error response.
func (rt *Router) answerError(w http.ResponseWriter, thread string, err error) {
	e := requestError(err)
	rt.metrics.routerError(e.Code)
	rt.cfg.observers.Observe(RejectionEvent{Thread: thread, Code: e.Code, Reason: rows.OneLineSpaced(e.Error())})
	rt.log.Info("request refused", "status", e.Status, "code", e.Code, "msg", e.Message)
	writeErrorBody(w, e.Status, e.Body())
}
