package router

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"hpatch-router/router/sse"
)

// Causes attached to the upstream request context when the router gives up.
var (
	errResponseStart = errors.New("upstream did not start a response in time")
	errStreamIdle    = errors.New("upstream stream went idle")
)

func defaultTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Relay bodies exactly as the upstream encoded them; the rewrite path
	// asks for identity encoding instead (see outboundRequest).
	t.DisableCompression = true
	t.MaxIdleConnsPerHost = 64
	return t
}

// isHopHeader reports the connection-scoped headers that are never
// forwarded (RFC 9110 §7.6.1); k is in canonical form.
func isHopHeader(k string) bool {
	switch k {
	case "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
		"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	return false
}

// copyHeaders copies every end-to-end header of src into dst, dropping
// hop-by-hop headers and those the Connection header names. The copied
// values share one backing array (as http.Header.Clone does), each key's
// slice capped at its own values so an append to one cannot reach the
// next.
func copyHeaders(dst, src http.Header) {
	var named []string
	for _, v := range src.Values("Connection") {
		for f := range strings.SplitSeq(v, ",") {
			if f = textproto.TrimString(f); f != "" {
				named = append(named, http.CanonicalHeaderKey(f))
			}
		}
	}
	n := 0
	for _, vv := range src {
		n += len(vv)
	}
	values := make([]string, 0, n)
	for k, vv := range src {
		if isHopHeader(k) || slices.Contains(named, k) {
			continue
		}
		if len(vv) == 0 {
			dst[k] = dst[k][:0:0]
			continue
		}
		values = append(values, vv...)
		dst[k] = values[len(values)-len(vv) : len(values) : len(values)]
	}
}

// upstreamURL maps /v1/<rest>?q to <upstream>/<rest>?q, keeping the
// client's path escaping and query bytes.
func (rt *Router) upstreamURL(r *http.Request) *url.URL {
	u := *rt.cfg.upstream
	rest := strings.TrimPrefix(r.URL.EscapedPath(), "/v1")
	base := strings.TrimRight(u.EscapedPath(), "/")
	raw := base + rest
	if p, err := url.PathUnescape(raw); err == nil {
		u.Path = p
		u.RawPath = raw
		if u.EscapedPath() == p {
			u.RawPath = ""
		}
	} else {
		u.Path = strings.TrimRight(u.Path, "/") + r.URL.Path[len("/v1"):]
		u.RawPath = ""
	}
	u.RawQuery = r.URL.RawQuery
	u.Fragment, u.RawFragment = "", ""
	return &u
}

// outboundRequest builds the upstream request. body nil streams r.Body
// through; otherwise body's pieces are sent in order, with their exact
// total length (each reader, the body and every GetBody, reads its own
// copy of the piece list: net.Buffers.Read consumes it). identity asks the upstream for an unencoded response (the rewrite path
// must read it).
func (rt *Router) outboundRequest(ctx context.Context, r *http.Request, body net.Buffers, identity bool) (*http.Request, error) {
	// A shallow copy (not r.Clone, which would copy the header and URL
	// only for them to be replaced here): the URL and header are built
	// anew, and what else the transport reads is copied as Clone copies
	// it. The form fields are never read on the way out.
	out := r.WithContext(ctx)
	out.RequestURI = ""
	out.URL = rt.upstreamURL(r)
	out.Host = ""
	out.Header = make(http.Header, len(r.Header))
	copyHeaders(out.Header, r.Header)
	out.Trailer = r.Trailer.Clone()
	out.TransferEncoding = slices.Clone(r.TransferEncoding)
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = nil // do not let net/http add one
	}
	if identity {
		out.Header.Del("Accept-Encoding")
	}
	if body != nil {
		n := 0
		for _, p := range body {
			n += len(p)
		}
		out.Body = piecesReader(body)
		out.ContentLength = int64(n)
		out.GetBody = func() (io.ReadCloser, error) { return piecesReader(body), nil }
		out.Header.Set("Content-Length", strconv.Itoa(n))
	} else if r.ContentLength == 0 {
		out.Body = nil
	}
	out.Close = false
	return out, nil
}

// piecesReader reads body's pieces in order without consuming body.
func piecesReader(body net.Buffers) io.ReadCloser {
	b := slices.Clone(body)
	return io.NopCloser(&b)
}

// roundTrip sends out and waits for the response headers at most the
// response start timeout. The returned cancel must be called when the
// response body is done; the body is wrapped with the idle timeout.
func (rt *Router) roundTrip(parent context.Context, build func(ctx context.Context) (*http.Request, error)) (*http.Response, context.CancelCauseFunc, error) {
	ctx, cancel := context.WithCancelCause(parent)
	out, err := build(ctx)
	if err != nil {
		cancel(nil)
		return nil, nil, err
	}
	timer := time.AfterFunc(rt.cfg.responseStartTimeout, func() { cancel(errResponseStart) })
	start := time.Now()
	resp, err := rt.transport.RoundTrip(out)
	stopped := timer.Stop()
	rt.metrics.upstreamLatency(time.Since(start))
	if err == nil && !stopped {
		resp.Body.Close()
		err = errResponseStart
	}
	if err != nil {
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
			err = c
		}
		cancel(nil)
		return nil, nil, err
	}
	resp.Body = newIdleBody(resp.Body, rt.cfg.streamIdleTimeout, cancel)
	return resp, cancel, nil
}

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
func (rt *Router) failed(w http.ResponseWriter, r *http.Request, at failStage, err error) {
	var mbe *http.MaxBytesError
	switch {
	case errors.Is(err, errMemoryBudget):
		rt.memoryExhausted(w)
	case errors.Is(err, errBodyTooLarge) || errors.As(err, &mbe):
		rt.metrics.fault("request_too_large")
		writeRouterError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large",
			fmt.Sprintf("the request body exceeds %d bytes", rt.cfg.maxRequestBody))
	case at == readingBody && errors.Is(err, io.ErrUnexpectedEOF):
		// Checked before client_gone: a client that sent less than its
		// Content-Length and half-closed the connection cancels the
		// request's context, yet still reads the answer.
		rt.metrics.fault("request_body_short")
		msg := "the request body ended inside a chunk; send the whole body"
		if r.ContentLength >= 0 {
			msg = fmt.Sprintf("the request body ended before its Content-Length of %d bytes; send the whole body", r.ContentLength)
		}
		writeRouterError(w, http.StatusBadRequest, "invalid_request_error", codeShortBody, msg)
	case r.Context().Err() != nil:
		rt.metrics.fault("client_gone")
		// Codex closes a stream it no longer needs after a normal turn:
		// debug, not news (counted as client_gone).
		rt.log.Debug("client closed the connection before the response ended", "path", r.URL.Path)
	case errors.Is(err, errResponseStart):
		rt.metrics.fault("response_start_timeout")
		rt.log.Warn("upstream response start timeout", "path", r.URL.Path, "timeout", rt.cfg.responseStartTimeout)
		writeRouterError(w, http.StatusGatewayTimeout, "upstream_error", "upstream_timeout",
			fmt.Sprintf("upstream did not start a response within %s", rt.cfg.responseStartTimeout))
	case errors.Is(err, errStreamIdle):
		rt.metrics.fault("stream_idle_timeout")
		rt.log.Warn("upstream stream idle timeout; ending the stream", "path", r.URL.Path, "timeout", rt.cfg.streamIdleTimeout)
	case errors.Is(err, sse.ErrEventTooLarge):
		rt.metrics.fault("event_too_large")
		rt.log.Warn("upstream event too large; ending the stream", "max", rt.cfg.maxEventSize)
	case at == readingBody:
		rt.metrics.fault("request_read_error")
		writeRouterError(w, http.StatusBadRequest, "invalid_request_error", "request_read_error",
			"cannot read the request body: "+err.Error())
	case at == startingUpstream:
		rt.metrics.fault("upstream_unreachable")
		rt.log.Warn("upstream request failed", "path", r.URL.Path, "err", redactURLError(err))
		writeRouterError(w, http.StatusBadGateway, "upstream_error", "upstream_unreachable",
			"upstream request failed: "+redactURLError(err))
	default:
		rt.metrics.fault("upstream_reset")
		rt.log.Warn("upstream stream ended early", "path", r.URL.Path, "err", redactURLError(err))
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

// forward relays r to the upstream unchanged (body nil: stream r.Body;
// otherwise send body's pieces) and the response back unchanged, flushing
// as bytes arrive.
func (rt *Router) forward(w http.ResponseWriter, r *http.Request, body net.Buffers) {
	if body == nil && r.Body != nil && r.Body != http.NoBody {
		if r.ContentLength > rt.cfg.maxRequestBody {
			rt.failed(w, r, readingBody, errBodyTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, rt.cfg.maxRequestBody)
		// The body streams upstream while the response may already flow
		// back. Without full duplex, net/http's HTTP/1 server drains and
		// closes an unread request body once the handler writes headers; the
		// transport then fails its body write and closes the upstream
		// connection under the response ("use of closed network connection").
		_ = http.NewResponseController(w).EnableFullDuplex()
	}
	resp, cancel, err := rt.roundTrip(r.Context(), func(ctx context.Context) (*http.Request, error) {
		return rt.outboundRequest(ctx, r, body, false)
	})
	if err != nil {
		rt.failed(w, r, startingUpstream, err)
		return
	}
	defer cancel(nil)
	defer resp.Body.Close()
	rt.relayRaw(w, r, resp)
}

// copyResponseHeaders copies an upstream response's end-to-end headers
// except CORS headers: only Codex uses the router, and an upstream's
// Access-Control-Allow-* would let a web page in the user's browser read
// the answers.
func copyResponseHeaders(dst, src http.Header) {
	copyHeaders(dst, src)
	for k := range dst {
		if strings.HasPrefix(k, "Access-Control-") {
			delete(dst, k)
		}
	}
}

// writeResponseHeader copies the upstream status and end-to-end headers.
func writeResponseHeader(w http.ResponseWriter, resp *http.Response, dropLength bool) {
	copyResponseHeaders(w.Header(), resp.Header)
	if dropLength {
		w.Header().Del("Content-Length")
	}
	w.WriteHeader(resp.StatusCode)
}

// relayRaw copies the response body as it arrives, flushing after every
// read so event streams are not buffered.
func (rt *Router) relayRaw(w http.ResponseWriter, r *http.Request, resp *http.Response) {
	writeResponseHeader(w, resp, false)
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				rt.metrics.fault("client_gone")
				return
			}
			_ = rc.Flush()
		}
		if err != nil {
			if err != io.EOF {
				rt.failed(w, r, streaming, err)
			}
			return
		}
	}
}
