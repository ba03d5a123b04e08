package router

import (
	"net/http"
	"net/textproto"
	"slices"
	"strings"
)

// The header rules of every forwarded request and relayed response.

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
