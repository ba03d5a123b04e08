package router

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// upstreamURL maps /v1/<rest>?q to <upstream>/<rest>?q, keeping the
// client's path escaping and query bytes.
func (p *proxy) upstreamURL(r *http.Request) *url.URL {
	u := *p.upstream
	rest := strings.TrimPrefix(r.URL.EscapedPath(), "/v1")
	base := strings.TrimRight(u.EscapedPath(), "/")
	raw := base + rest
	if unescaped, err := url.PathUnescape(raw); err == nil {
		u.Path = unescaped
		u.RawPath = raw
		if u.EscapedPath() == unescaped {
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
func (p *proxy) outboundRequest(ctx context.Context, r *http.Request, body net.Buffers, identity bool) (*http.Request, error) {
	// A shallow copy (not r.Clone, which would copy the header and URL
	// only for them to be replaced here): the URL and header are built
	// anew, and what else the transport reads is copied as Clone copies
	// it. The form fields are never read on the way out.
	out := r.WithContext(ctx)
	out.RequestURI = ""
	out.URL = p.upstreamURL(r)
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
func (p *proxy) roundTrip(parent context.Context, build func(ctx context.Context) (*http.Request, error)) (*http.Response, context.CancelCauseFunc, error) {
	ctx, cancel := context.WithCancelCause(parent)
	out, err := build(ctx)
	if err != nil {
		cancel(nil)
		return nil, nil, err
	}
	timer := time.AfterFunc(p.responseStartTimeout, func() { cancel(errResponseStart) })
	start := time.Now()
	resp, err := p.transport.RoundTrip(out)
	stopped := timer.Stop()
	p.metrics.upstreamLatency(time.Since(start))
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
	resp.Body = newIdleBody(resp.Body, p.streamIdleTimeout, cancel)
	return resp, cancel, nil
}

// forward relays r to the upstream unchanged (body nil: stream r.Body;
// otherwise send body's pieces) and the response back unchanged, flushing
// as bytes arrive.
func (p *proxy) forward(w http.ResponseWriter, r *http.Request, body net.Buffers) {
	if body == nil && r.Body != nil && r.Body != http.NoBody {
		if r.ContentLength > p.maxRequestBody {
			p.failed(w, r, readingBody, errBodyTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, p.maxRequestBody)
		// The body streams upstream while the response may already flow
		// back. Without full duplex, net/http's HTTP/1 server drains and
		// closes an unread request body once the handler writes headers; the
		// transport then fails its body write and closes the upstream
		// connection under the response ("use of closed network connection").
		_ = http.NewResponseController(w).EnableFullDuplex()
	}
	resp, cancel, err := p.roundTrip(r.Context(), func(ctx context.Context) (*http.Request, error) {
		return p.outboundRequest(ctx, r, body, false)
	})
	if err != nil {
		p.failed(w, r, startingUpstream, err)
		return
	}
	defer cancel(nil)
	defer resp.Body.Close()
	p.relayRaw(w, r, resp)
}
