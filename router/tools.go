package router

import (
	"time"

	"hpatch-router/plugins/registry"
	"hpatch-router/shebang"
)

// Declared tools (DESIGN §12): package registry loads and validates them;
// the request stage offers each one beside shell and hpatch in the
// owner's container (request.Rewriter.Rewrite), given the set current
// when the request arrived (currentTools); the response turns a call of
// one the request offered (request.Info.Tools) into a carrier like a
// shell call whose shebang is the tool's run.

// ToolSource gives the declared tools in service; the router reads it
// once per request. Package registry's Registry implements it.
type ToolSource interface {
	Current() *registry.Set
}

// Tools makes the router offer src's tools (none without it, and none in
// passthrough mode).
func Tools(src ToolSource) Option {
	return func(c *config) error {
		c.tools = src
		return nil
	}
}

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

// offeredTool returns the tool of this request named name, or nil.
func (s *rewriteSession) offeredTool(name string) *registry.Tool {
	for _, t := range s.facts.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// toolCarrier translates one call of a declared tool into its carrier, as
// a shell call whose shebang is the tool's run; it is never retained and
// gets no A16 warnings. A rejection prints "NAME: why" and runs nothing.
func (s *rewriteSession) toolCarrier(callID, input string, t *registry.Tool) string {
	s.rt.metrics.toolCall(t.Name)
	plan, err := shebang.TranslateTool(t.Spec, input, shebang.Options{Params: s.facts.Params})
	code, quotes := "tool", true
	if err == nil {
		if err = s.prepareRuntime(); err != nil {
			code, quotes = "runtime", false
		}
	}
	if err != nil {
		s.rt.metrics.rejection(code)
		s.rt.observe(callRejection(s.thread, callID, code, t.Name, err, quotes))
		return shebang.ToolRejectionCarrier(t.Name, err)
	}
	carrier := s.rt.cfg.translator.Carrier(plan, shebang.Retention{})
	if obs := &s.rt.cfg.observers; obs.active() {
		ev := CallEvent{Thread: s.thread, CallID: callID, Tool: t.Name, Kind: string(plan.Kind), Interpreter: plan.Interpreter,
			ModelBytes: len(input), CarrierBytes: len(carrier), Body: input}
		ev.Time = time.Now()
		ev.Duration = ev.Time.Sub(s.start)
		obs.shellCall(ev)
	}
	return carrier
}
