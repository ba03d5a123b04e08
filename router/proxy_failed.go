package router

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"

	"hpatch-router/router/sse"
)

// failStage is how far a request got when it failed, which decides what
// can still be said to the client.
type failStage int

const (
	readingBody      failStage = iota // nothing sent yet; reading the client's body failed
	startingUpstream                  // nothing sent yet; the upstream round trip failed
	streaming                         // the response has started: the stream just ends
)

// failed records why a request could not be served, one rule for every
// stage: the fault it counts, what it logs and, while nothing was sent,
// the router's error response.
func (p *proxy) failed(w http.ResponseWriter, r *http.Request, at failStage, err error) {
	var mbe *http.MaxBytesError
	switch {
	case errors.Is(err, errMemoryBudget):
		p.memoryExhausted(w)
	case errors.Is(err, errBodyTooLarge) || errors.As(err, &mbe):
		p.metrics.fault("request_too_large")
		writeRouterError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large",
			fmt.Sprintf("the request body exceeds %d bytes", p.maxRequestBody))
	case at == readingBody && errors.Is(err, io.ErrUnexpectedEOF):
		// Checked before client_gone: a client that sent less than its
		// Content-Length and half-closed the connection cancels the
		// request's context, yet still reads the answer.
		p.metrics.fault("request_body_short")
		msg := "the request body ended inside a chunk; send the whole body"
		if r.ContentLength >= 0 {
			msg = fmt.Sprintf("the request body ended before its Content-Length of %d bytes; send the whole body", r.ContentLength)
		}
		writeRouterError(w, http.StatusBadRequest, "invalid_request_error", codeShortBody, msg)
	case r.Context().Err() != nil:
		p.metrics.fault("client_gone")
		// Codex closes a stream it no longer needs after a normal turn:
		// debug, not news (counted as client_gone).
		p.log.Debug("client closed the connection before the response ended", "path", r.URL.Path)
	case errors.Is(err, errResponseStart):
		p.metrics.fault("response_start_timeout")
		p.log.Warn("upstream response start timeout", "path", r.URL.Path, "timeout", p.responseStartTimeout)
		writeRouterError(w, http.StatusGatewayTimeout, "upstream_error", "upstream_timeout",
			fmt.Sprintf("upstream did not start a response within %s", p.responseStartTimeout))
	case errors.Is(err, errStreamIdle):
		p.metrics.fault("stream_idle_timeout")
		p.log.Warn("upstream stream idle timeout; ending the stream", "path", r.URL.Path, "timeout", p.streamIdleTimeout)
	case errors.Is(err, sse.ErrEventTooLarge):
		p.metrics.fault("event_too_large")
		p.log.Warn("upstream event too large; ending the stream", "max", p.maxEventSize)
	case at == readingBody:
		p.metrics.fault("request_read_error")
		writeRouterError(w, http.StatusBadRequest, "invalid_request_error", "request_read_error",
			"cannot read the request body: "+err.Error())
	case at == startingUpstream:
		p.metrics.fault("upstream_unreachable")
		p.log.Warn("upstream request failed", "path", r.URL.Path, "err", redactURLError(err))
		writeRouterError(w, http.StatusBadGateway, "upstream_error", "upstream_unreachable",
			"upstream request failed: "+redactURLError(err))
	default:
		p.metrics.fault("upstream_reset")
		p.log.Warn("upstream stream ended early", "path", r.URL.Path, "err", redactURLError(err))
	}
}

// redactURLError drops the URL (which may carry a query) from a transport
// error and keeps the cause.
func redactURLError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout: " + err.Error()
	}
	return err.Error()
}

// memoryExhausted answers a request refused for the held-bytes bound.
func (p *proxy) memoryExhausted(w http.ResponseWriter) {
	p.metrics.fault("request_memory")
	w.Header().Set("Retry-After", "1")
	writeRouterError(w, http.StatusServiceUnavailable, "server_error", "request_memory_exhausted",
		fmt.Sprintf("the router already holds close to its limit of %d bytes of request bodies in memory; retry shortly", p.held.limit))
}
