package router

import (
	"slices"
	"time"

	"hpatch-router/plugins/registry"
	"hpatch-router/shebang"
)

// Declared tools (DESIGN §12): package registry loads and validates them;
// the router offers each one beside shell and hpatch in the owner's
// container and turns a call into a carrier like a shell call whose
// shebang is the tool's run. The set a request uses is the one current
// when it arrived (request.toolSet), and the response uses the tools that
// request offered (RequestInfo.Tools).

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

// toolOffer is what a request offers of a set in one owner container:
// the tools whose names the request does not define there, and the bytes
// inserted after the built-ins.
type toolOffer struct {
	tools   []*registry.Tool
	insert  []byte
	skipped []string
}

// offerTools decides the offer for the owner container namespace. The
// bytes depend only on the set and the names the request defines, so the
// same request gives the same bytes.
func offerTools(set *registry.Set, items []ownerItem, namespace string) toolOffer {
	if set.Len() == 0 {
		return toolOffer{}
	}
	var skipped []string
	for _, t := range set.Tools {
		if definesName(items, namespace, t.Name) {
			skipped = append(skipped, t.Name)
		}
	}
	if len(skipped) == 0 {
		return toolOffer{tools: set.Tools, insert: set.Inject()}
	}
	var o toolOffer
	o.skipped = skipped
	for _, t := range set.Tools {
		if !slices.Contains(skipped, t.Name) {
			o.tools = append(o.tools, t)
			o.insert = append(append(o.insert, ','), t.JSON...)
		}
	}
	return o
}

// definesName reports whether an additional_tools item defines name in
// the container namespace.
func definesName(items []ownerItem, namespace, name string) bool {
	for _, it := range items {
		for _, n := range it.an.names {
			if n.container == namespace && n.name == name {
				return true
			}
		}
	}
	return false
}

// appendTo adds the offer's insertion right after an owner's own edits
// (whose last one inserts the built-ins at the end of the exec object).
func (o toolOffer) appendTo(edits []edit) []edit {
	if len(o.insert) == 0 || len(edits) == 0 {
		return edits
	}
	at := edits[len(edits)-1].end
	return append(edits, edit{at, at, o.insert})
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
