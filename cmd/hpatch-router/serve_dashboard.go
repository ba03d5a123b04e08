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

// withDashboard mounts d in front of the router (dashboard.Wrap); a nil d
// (--dashboard=false) leaves the router alone.
func withDashboard(rt http.Handler, d *dashboard.Dashboard) http.Handler {
	if d == nil {
		return rt
	}
	return d.Wrap(rt)
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
