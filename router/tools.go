package router

import "hpatch-router/plugins/registry"

// Declared tools (DESIGN §12): package registry loads and validates them;
// the request stage offers each one beside shell and hpatch in the
// owner's container (request.Rewriter.Rewrite), given the set current
// when the request arrived (currentTools); the response turns a call of
// one the request offered (request.Info.Tools) into a carrier like a
// shell call whose shebang is the tool's run (package response).

// ToolsReloaded counts a reload of the tools directory by its outcome
// ("ok" or "invalid") in hpatch_router_tools_reloads_total.
func (rt *Router) ToolsReloaded(outcome string) {
	rt.metrics.add("hpatch_router_tools_reloads_total", 1, labelPair{"outcome", outcome})
}

// currentTools is the set a request that arrives now uses.
func (rt *Router) currentTools() *registry.Set {
	if rt.cfg.tools == nil || rt.cfg.mode == ModePassthrough {
		return nil
	}
	return rt.cfg.tools.Current()
}
