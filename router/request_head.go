package router

import (
	"net/http"
	"strings"

	"hpatch-router/ident"
)

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
