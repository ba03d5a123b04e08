package router

import (
	"cmp"
	"context"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"

	"hpatch-router/ident"
	"hpatch-router/router/request"
)

// serveResponses handles POST /v1/responses, and with compact POST
// /v1/responses/compact (Codex's remote compaction), in one pass: read
// the body (bounded), parse it once, settle the thread's staged changes,
// restore the carriers Codex echoes to the model's original calls, and
// then, for a response, rewrite the request, forward it and rewrite the
// response. A compaction's input is the conversation too, so it is
// restored the same way (the compaction model must see what the model
// emitted, not carriers), but its tools are not rewritten and its
// response is relayed as it is.
func (rt *Router) serveResponses(w http.ResponseWriter, r *http.Request, compact bool) {
	thread := rt.threadID(r)
	created, runtimeErr := rt.prepareThread(r.Context(), thread)
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
	if !facts.Owned || resp.StatusCode/100 != 2 {
		rt.relayRaw(w, r, resp)
		return
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		rt.metrics.fault("encoded_response_passthrough")
		rt.log.Warn("upstream response is content-encoded; relaying it without rewrite", "encoding", ce)
		rt.relayRaw(w, r, resp)
		return
	}
	s := rt.newRewriteSession(r.Context(), thread, facts)
	s.runtimeReady(runtimeErr)
	if thread != "" {
		rt.streams.begin(thread)
		defer rt.streams.end(thread)
	}
	s.turn = sync.OnceValue(func() turnWorkspace { return readTurnWorkspace(req, r.Header) })
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

// relaySSE streams the rewritten events. Events that arrived together
// leave together: what the rewrite makes of them is collected and written
// and flushed once no whole event waits to be parsed (or maxRelayBatch
// bytes are collected), so no event waits for bytes still to come and a
// burst costs one write instead of one per event. The header is not
// flushed on its own: it leaves with the first event (as with
// httputil.ReverseProxy), which saves a write and a client wake-up per
// response; the upstream sends its first event at once.
func (rt *Router) relaySSE(w http.ResponseWriter, r *http.Request, resp *http.Response, s *rewriteSession) {
	writeResponseHeader(w, resp, true)
	rc := http.NewResponseController(w)
	events := rt.sse.get(resp.Body)
	defer rt.sse.put(events)
	rw := newSSERewriter(s)
	batch := events.out[:0]
	defer func() { events.out = batch }() // before the put above
	for {
		ev, err := events.Next()
		if ev != nil {
			batch = rw.handle(ev, batch)
		}
		if err == nil && events.Buffered() && len(batch) < maxRelayBatch {
			continue
		}
		if len(batch) > 0 {
			if _, werr := w.Write(batch); werr != nil {
				rt.metrics.fault("client_gone")
				rt.log.Debug("client closed the connection mid-stream", "path", r.URL.Path)
				return
			}
			batch = batch[:0]
			_ = rc.Flush()
		}
		if err == nil {
			continue
		}
		if n := rw.pending(); n > 0 {
			rt.log.Warn("stream ended while calls were withheld; they are dropped", "calls", n)
		}
		if !errors.Is(err, io.EOF) {
			rt.failed(w, r, streaming, err)
		}
		return
	}
}

// maxRelayBatch bounds the bytes relaySSE collects before it writes them,
// whatever else has arrived.
const maxRelayBatch = 64 << 10

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
	rt.observe(RejectionEvent{Thread: thread, Code: e.Code, Reason: oneLineText(e.Error())})
	rt.log.Info("request refused", "status", e.Status, "code", e.Code, "msg", e.Message)
	writeErrorBody(w, e.Status, e.Body())
}
