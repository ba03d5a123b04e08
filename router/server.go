package router

import (
	"net/http"
	pathpkg "path"
	"strings"
)

// ServeHTTP routes one request. Its path is cleaned first, so dot
// segments cannot lead outside /v1/ and so outside the upstream base path.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w, done := rt.logRequests(r.Context(), w, r, r.URL.Path)
	defer done()
	r, ok := cleanRequestPath(r)
	if !ok {
		rt.metrics.request("bad_path")
		writeRouterError(w, http.StatusBadRequest, "invalid_request_error", "invalid_path",
			"the request path contains a backslash; send a plain /v1/... path")
		return
	}
	path := r.URL.Path
	switch {
	case path == "/healthz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
		return
	case path == "/metrics" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		rt.metrics.write(w)
		return
	case path == "/v1/responses" && r.Method == http.MethodPost:
		rt.metrics.request("responses")
		rt.serveResponses(w, r, false)
	case path == "/v1/responses/compact" && r.Method == http.MethodPost:
		rt.metrics.request("compact")
		rt.serveResponses(w, r, true)
	case strings.HasPrefix(path, "/v1/"):
		rt.metrics.request("forward")
		rt.forward(w, r, nil)
	default:
		rt.metrics.request("not_found")
		writeRouterError(w, http.StatusNotFound, "invalid_request_error", "not_found",
			"no route for "+r.Method+" "+path+"; the router serves /v1/..., /healthz, /metrics and, unless serve --dashboard=false, the dashboard at /")
	}
}

// cleanRequestPath returns r with its path cleaned of dot segments and
// repeated slashes (a trailing slash is kept; the escaping of a path that
// needed no cleaning is kept too). ok is false for a path with a
// backslash, which some servers read as a separator.
func cleanRequestPath(r *http.Request) (_ *http.Request, ok bool) {
	p := r.URL.Path
	if strings.Contains(p, "\\") {
		return r, false
	}
	clean := pathpkg.Clean("/" + p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	if clean == p {
		return r, true
	}
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = clean, ""
	r2.URL = &u
	return r2, true
}
