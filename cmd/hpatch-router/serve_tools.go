//go:build linux

package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"hpatch-router/plugins/registry"
	"hpatch-router/router"
	"hpatch-router/router/dashboard"
)

// toolsDebounce is how long the tools directory must be quiet before a
// change is loaded: an editor's save is several events.
const toolsDebounce = 200 * time.Millisecond

// serveTools loads the tools directory for serve and returns the option
// that offers its tools and, once the router exists, the start of the
// watch that reloads them (it counts every reload in the router's
// metrics and ends with ctx).
func serveTools(dir string, log *slog.Logger) (router.Option, *registry.Registry, func(ctx context.Context, rt *router.Router)) {
	var counted *router.Router // set before the watch starts; the first load is not a reload
	reg := registry.Open(dir, toolsLoadOptions(os.Getuid()), log, func(outcome string, _ []registry.Problem) {
		if counted != nil {
			counted.ToolsReloaded(outcome)
		}
	})
	start := func(ctx context.Context, rt *router.Router) {
		counted = rt
		if _, err := reg.Watch(ctx, toolsDebounce); err != nil {
			log.Warn("cannot watch the tools directory; changes need a restart", "dir", dir, "err", err)
		}
	}
	return router.Tools(reg), reg, start
}

// toolsState is what the dashboard shows of reg.
func toolsState(reg *registry.Registry) dashboard.ToolsState {
	st := reg.Status()
	out := dashboard.ToolsState{Dir: st.Dir}
	for _, t := range reg.Current().Tools {
		out.InService = append(out.InService, t.Name)
	}
	for _, p := range st.Problems {
		out.Problems = append(out.Problems, p.String())
	}
	return out
}
