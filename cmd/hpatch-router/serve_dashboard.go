package main

import (
	"log/slog"
	"net"
	"net/http"

	"hpatch-router/router"
	"hpatch-router/router/dashboard"
)

// dashboardFlags are serve's dashboard flags.
type dashboardFlags struct {
	enabled bool // --dashboard (default on)
	bodies  bool // --dashboard-bodies (default off)
}

// newServeDashboard builds the dashboard serve mounts on its listener and
// the router options that feed it; nil when --dashboard=false.
func newServeDashboard(f dashboardFlags, listen string, log *slog.Logger) (*dashboard.Dashboard, []router.Option) {
	if !f.enabled {
		return nil, nil
	}
	if !isLoopbackListen(listen) {
		log.Warn("the dashboard is served on a non-loopback address; anyone who can reach it sees thread ids and call metadata",
			"listen", listen, "bodies", f.bodies)
	}
	d := dashboard.New(dashboard.Bodies(f.bodies), dashboard.Logger(log))
	return d, []router.Option{router.WithObserver(d), router.WithObserverBodies(f.bodies)}
}

// withDashboard routes the dashboard's GET paths (/, /events,
// /api/summary) to d and everything else to the router. A nil d leaves
// the router alone.
func withDashboard(rt http.Handler, d *dashboard.Dashboard) http.Handler {
	if d == nil {
		return rt
	}
	dh := d.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if dashboard.Serves(r.Method, r.URL.Path) {
			dh.ServeHTTP(w, r)
			return
		}
		rt.ServeHTTP(w, r)
	})
}

// isLoopbackListen reports whether a --listen address only accepts local
// connections.
func isLoopbackListen(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil || host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
