package request

import (
	"net"
	"slices"

	"hpatch-router/plugins/registry"
	"hpatch-router/shebang"
)

// Info is what Rewrite learned about a Responses request; the response
// rewrite needs it to build carriers for this request's owner.
type Info struct {
	// Owned reports that the request has a Code Mode exec owner, so the
	// `shell` and `hpatch` tools were injected.
	Owned bool
	// Namespace is the owner's namespace as carrier calls must name it:
	// "functions" (Codex ≥0.147) or "" for the flat 0.144–0.146 layout.
	// With several definitions, the latest one wins, as in Codex.
	Namespace string
	// Params are the exec_command arguments except cmd, each with its
	// declared type, from the latest owner description, in declaration
	// order (for shebang.Options.Params). Empty when no shape was
	// recognized.
	Params []shebang.Param
	// ParamsShape is the sanitized shape text appended under #!params.
	ParamsShape string
	// Rewritten counts the exec definitions rewritten (one per
	// additional_tools item that declares the owner).
	Rewritten int
	// NoExecCommand reports a request passed through because its latest
	// exec definition offers no exec_command for carriers to call;
	// OtherCommand names the command tool it offers instead ("" when none
	// was recognised). The server logs it.
	NoExecCommand bool
	OtherCommand  string
	// Tools are the declared tools this request offers (DESIGN §12);
	// SkippedTools those it did not, because it defines their names.
	Tools        []*registry.Tool
	SkippedTools []string
}

// ParamNames are the names of info.Params, in declaration order.
func (info Info) ParamNames() []string {
	return shebang.ParamsShape{Params: info.Params}.Names()
}

// Rewrite rewrites a parsed POST /responses body for the hpatch mode
// (DESIGN §3, A13, A14). It finds every Code Mode exec definition in the
// `input` items of type additional_tools, trims its exec_command section
// and nested example, and injects `shell` and `hpatch` right after it in
// the same container, followed by the declared tools of offered that the
// request does not define itself (offerTools). Only those spans change:
// every other byte is sent from the body, so siblings, other items and
// instructions stay byte-identical and the upstream prompt cache keeps
// its prefix.
//
// The output is the rewritten body as its pieces in order: runs of the
// body's own bytes and the replacement spans between them (net.Buffers
// sends them as they are, so the router never copies a conversation to
// change a few KB of it). restored are the replay restore's edits of the
// body (whole custom_tool_call items, which the rewrite never reads or
// changes), applied in the same pieces; the rewrite reads the body as
// Codex sent it. A body without an owner is the body with restored
// applied, and so is one with top-level tools: only Responses-Lite
// requests have none, so its additional_tools items are the history of a
// thread that switched to a model without Code Mode, where Codex runs no
// exec call. Layouts the router cannot own are an *Error before anything
// is forwarded. The same input gives the same output bytes.
//
// It reads the request in one pass of stages: find the owners
// (findOwners, through the memo), check the layout rules in the order
// they are given (ownerEdits), then splice the owners' edits and
// restored into the body, once.
func (rw *Rewriter) Rewrite(r *Parsed, offered *registry.Set, restored []Edit) (net.Buffers, Info, error) {
	edits, info, err := rw.ownerEdits(r, offered)
	if err != nil {
		return nil, info, err
	}
	return Splice(r.Body, mergeEdits(edits, restored)), info, nil
}

// ownerEdits finds the owners and checks the layout rules in the order
// they are given, and returns the owners' edits (none when the request
// passes through) and what it found.
func (rw *Rewriter) ownerEdits(r *Parsed, offered *registry.Set) ([]Edit, Info, error) {
	var info Info
	req, err := findOwners(r, rw)
	if err != nil {
		return nil, info, err
	}
	owned := 0
	var last *itemAnalysis
	var taken takenNames
	for _, it := range req.items {
		for _, n := range it.an.notes {
			taken.add(n.container, n.name, it.idx)
		}
		if it.an.owner {
			owned++
		}
		if it.an.owner || it.an.lacksExecCommand {
			last = it.an
		}
	}
	// Only Responses-Lite requests have no top-level tools (FACTS §1.1).
	// One that has them is for a model without Code Mode, such as after a
	// model switch in the thread: its additional_tools items are history,
	// Codex refuses an exec call there, so nothing is offered.
	if last == nil || req.hasTools {
		return nil, info, nil
	}
	// The latest exec definition wins, as in Codex: when it offers no
	// exec_command, a carrier would call a tool the client does not have.
	if last.lacksExecCommand {
		info.NoExecCommand, info.OtherCommand = true, last.otherCommand
		return nil, info, nil
	}
	if err := taken.conflict(req.items); err != nil {
		return nil, info, err
	}
	var edits []Edit
	offer := offerTools(offered, req.items, last.namespace)
	for _, it := range req.items {
		if !it.an.owner {
			continue
		}
		for _, e := range it.an.edits {
			edits = append(edits, Edit{it.start + e.Start, it.start + e.End, e.Repl})
		}
		edits = offer.appendTo(edits)
	}
	info.Owned = true
	info.Rewritten = owned
	info.Namespace = last.namespace
	info.Params = slices.Clone(last.shape.Params)
	info.ParamsShape = last.shape.Fields
	info.Tools, info.SkippedTools = offer.tools, offer.skipped
	return edits, info, nil
}
