package dashboard

import (
	_ "embed"
	"encoding/json"
	"net/http"
)

//go:embed page.html
var page string

// Paths the handler serves, relative to where it is mounted (the router
// mounts it at the root of its listener).
const (
	PathPage    = "/"
	PathEvents  = "/events"
	PathSummary = "/api/summary"
)

// Serves reports whether the handler answers method and path, so a caller
// sharing a listener (the router) can route only these requests to it.
func Serves(method, path string) bool {
	if method != http.MethodGet && method != http.MethodHead {
		return false
	}
	return path == PathPage || path == PathEvents || path == PathSummary
}

// Handler serves the page, the live feed and the summary. It does not
// check who is asking: mount it behind access.Guard (serve does), which
// admits only the router's own user with a loopback Host.
func (d *Dashboard) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PathPage+"{$}", d.servePage)
	mux.HandleFunc("GET "+PathEvents, d.serveEvents)
	mux.HandleFunc("GET "+PathSummary, d.serveSummary)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		mux.ServeHTTP(w, r)
	})
}

// Wrap mounts the dashboard in front of next on one listener, as serve
// does: the dashboard's GET paths (Serves) go to Handler, everything else
// to next (the router).
func (d *Dashboard) Wrap(next http.Handler) http.Handler {
	dh := d.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Serves(r.Method, r.URL.Path) {
			dh.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (d *Dashboard) servePage(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// Everything is inline; nothing may load from anywhere else.
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	_, _ = w.Write([]byte(page))
}

func (d *Dashboard) serveSummary(w http.ResponseWriter, _ *http.Request) {
	b, err := json.Marshal(d.Summary())
	if err != nil {
		http.Error(w, "dashboard: cannot encode the summary", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write(append(b, '\n'))
}
