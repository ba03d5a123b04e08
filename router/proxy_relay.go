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
func (p *proxy) relaySSE(w http.ResponseWriter, r *http.Request, resp *http.Response, s *response.Session) {
	writeResponseHeader(w, resp, true)
	rc := http.NewResponseController(w)
	events := p.sse.Get(resp.Body)
	defer p.sse.Put(events)
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
				p.metrics.fault("client_gone")
				p.log.Debug("client closed the connection mid-stream", "path", r.URL.Path)
				return
			}
			batch = batch[:0]
			_ = rc.Flush()
		}
		if err == nil {
			continue
		}
		if n := rw.Pending(); n > 0 {
			p.log.Warn("stream ended while calls were withheld; they are dropped", "calls", n)
		}
		if !errors.Is(err, io.EOF) {
			p.failed(w, r, streaming, err)
		}
		return
	}
}

// maxRelayBatch bounds the bytes relaySSE collects before it writes them,
// whatever else has arrived.
const maxRelayBatch = 64 << 10

// relayJSON rewrites a non-streaming response object: its output array
// gets the same carriers the stream would have.
func (p *proxy) relayJSON(w http.ResponseWriter, r *http.Request, resp *http.Response, s *response.Session) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(p.maxEventSize)+1))
	if err != nil {
		p.failed(w, r, streaming, err)
		writeRouterError(w, http.StatusBadGateway, "upstream_error", "upstream_reset",
			"upstream response ended early: "+redactURLError(err))
		return
	}
	if len(body) > p.maxEventSize {
		p.metrics.fault("response_too_large")
		writeRouterError(w, http.StatusBadGateway, "upstream_error", "response_too_large",
			fmt.Sprintf("upstream JSON response exceeds %d bytes", p.maxEventSize))
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

// relayRaw copies the response body as it arrives, flushing after every
// read so event streams are not buffered.
func (p *proxy) relayRaw(w http.ResponseWriter, r *http.Request, resp *http.Response) {
	writeResponseHeader(w, resp, false)
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				p.metrics.fault("client_gone")
				return
			}
			_ = rc.Flush()
		}
		if err != nil {
			if err != io.EOF {
				p.failed(w, r, streaming, err)
			}
			return
		}
	}
}
