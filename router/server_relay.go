package router

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"hpatch-router/router/response"
)

// relaySSE streams the rewritten events. Events that arrived together
// leave together: what the rewrite makes of them is collected and written
// and flushed once no whole event waits to be parsed (or maxRelayBatch
// bytes are collected), so no event waits for bytes still to come and a
// burst costs one write instead of one per event. The header is not
// flushed on its own: it leaves with the first event (as with
// httputil.ReverseProxy), which saves a write and a client wake-up per
// response; the upstream sends its first event at once.
func (rt *Router) relaySSE(w http.ResponseWriter, r *http.Request, resp *http.Response, s *response.Session) {
	writeResponseHeader(w, resp, true)
	rc := http.NewResponseController(w)
	events := rt.sse.Get(resp.Body)
	defer rt.sse.Put(events)
	rw := response.NewStream(s)
	batch := events.Out[:0]
	defer func() { events.Out = batch }() // before the put above
	for {
		ev, err := events.Next()
		if ev != nil {
			batch = rw.Handle(ev, batch)
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
		if n := rw.Pending(); n > 0 {
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

// relayJSON rewrites a non-streaming response object: its output array
// gets the same carriers the stream would have.
func (rt *Router) relayJSON(w http.ResponseWriter, r *http.Request, resp *http.Response, s *response.Session) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(rt.cfg.maxEventSize)+1))
	if err != nil {
		rt.failed(w, r, streaming, err)
		writeRouterError(w, http.StatusBadGateway, "upstream_error", "upstream_reset",
			"upstream response ended early: "+redactURLError(err))
		return
	}
	if len(body) > rt.cfg.maxEventSize {
		rt.metrics.fault("response_too_large")
		writeRouterError(w, http.StatusBadGateway, "upstream_error", "response_too_large",
			fmt.Sprintf("upstream JSON response exceeds %d bytes", rt.cfg.maxEventSize))
		return
	}
	if nb, ok := s.RewriteOutput(body, "output"); ok {
		body = nb
	}
	copyResponseHeaders(w.Header(), resp.Header)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}
