//go:build linux

package main

import (
	"log/slog"
	"net/http"

	"hpatch-router/plugins/registry"
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
func newServeDashboard(f dashboardFlags, log *slog.Logger, tools *registry.Registry) (*dashboard.Dashboard, []router.Option) {
	if !f.enabled {
		return nil, nil
	}
	opts := []dashboard.Option{dashboard.Bodies(f.bodies), dashboard.Logger(log)}
	if tools != nil {
		opts = append(opts, dashboard.Tools(func() dashboard.ToolsState { return toolsState(tools) }))
	}
	d := dashboard.New(opts...)
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
