package request

import (
	"net"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"hpatch-router/plugins"
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

// Edit replaces Body[Start:End] of a request with Repl; an insertion has
// Start == End.
type Edit struct {
	Start, End int
	Repl       []byte
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
// they are given, then splice the owners' edits into the body.
func (rw *Rewriter) Rewrite(r *Parsed, offered *registry.Set, restored []Edit) (net.Buffers, Info, error) {
	var info Info
	body := r.Body
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
		return Splice(body, restored), info, nil
	}
	// The latest exec definition wins, as in Codex: when it offers no
	// exec_command, a carrier would call a tool the client does not have.
	if last.lacksExecCommand {
		info.NoExecCommand, info.OtherCommand = true, last.otherCommand
		return Splice(body, restored), info, nil
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
	return Splice(body, mergeEdits(edits, restored)), info, nil
}

// mergeEdits merges two lists of ordered, non-overlapping edits of one
// body whose spans do not overlap each other into one ordered list.
func mergeEdits(a, b []Edit) []Edit {
	if len(b) == 0 {
		return a
	}
	out := make([]Edit, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].Start < b[0].Start {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// ownerRewrite is the rewrite of one exec tool object, as offsets relative
// to the start of the object. It depends only on the object's bytes, so it
// can be computed once and reused for every request that repeats them;
// it is never modified after construction.
type ownerRewrite struct {
	descStart, descEnd int    // span of the description value; descRepl nil: unchanged
	descRepl           []byte // the trimmed description as a JSON string
	toolLen            int    // length of the exec object; the insert goes there
	insert             []byte // ",<shell>,<hpatch>" placed right after the object
	shape              shebang.ParamsShape
}

// newOwnerRewrite trims the exec description and renders the injected
// tools with the #!params shape taken from it.
func newOwnerRewrite(tool gjson.Result, tools plugins.Tools) (*ownerRewrite, error) {
	rw := &ownerRewrite{toolLen: len(tool.Raw)}
	if d := tool.Get("description"); d.Type == gjson.String {
		// Get's Index counts from the start of the document tool came
		// from; the span is kept relative to the tool object.
		s := d.Index - tool.Index
		if s <= 0 || s+len(d.Raw) > len(tool.Raw) || tool.Raw[s:s+len(d.Raw)] != d.Raw {
			return nil, invalid(CodeInvalidJSON, "cannot locate the exec description in the request body")
		}
		desc := d.String()
		t := trimExecDescription(desc)
		rw.shape = t.Shape
		for i := range rw.shape.Params {
			// Names are substrings of the description, which may alias
			// the request body; a memo entry must not pin that body.
			// (Type literals are decoded copies.)
			rw.shape.Params[i].Name = strings.Clone(rw.shape.Params[i].Name)
		}
		if t.Description != desc {
			rw.descStart, rw.descEnd = s, s+len(d.Raw)
			rw.descRepl = AppendJSONString(nil, t.Description)
		}
	}
	shell, err := shellTool(rw.shape, tools)
	if err != nil {
		return nil, err
	}
	hp := tools.Hpatch
	ins := make([]byte, 0, len(shell)+len(hp)+2)
	rw.insert = append(append(append(append(ins, ','), shell...), ','), hp...)
	return rw, nil
}

// appendEdits adds this rewrite's edits for an exec object found at offset
// at in the body.
func (rw *ownerRewrite) appendEdits(edits []Edit, at int) []Edit {
	if rw.descRepl != nil {
		edits = append(edits, Edit{at + rw.descStart, at + rw.descEnd, rw.descRepl})
	}
	return append(edits, Edit{at + rw.toolLen, at + rw.toolLen, rw.insert})
}

// shellTool renders the `shell` tool with the request's #!params shape
// appended to the base description.
func shellTool(shape shebang.ParamsShape, tools plugins.Tools) ([]byte, error) {
	if shape.Fields == "" {
		return tools.Shell, nil
	}
	desc := tools.ShellDescription + plugins.ParamsSection(shape.Fields, shape.TypeScript)
	// sjson gets its own copy: the shared bytes are never written to.
	return sjson.SetRawBytes(slices.Clone(tools.Shell), "description", AppendJSONString(nil, desc))
}

// Splice applies edits, which are ordered and non-overlapping, as pieces:
// the bytes of body between the edits (aliased, not copied) and each
// edit's replacement. Empty runs are left out. Neither body nor a
// replacement (memo entries share them) may be modified afterwards; the
// pieces are only read.
func Splice(body []byte, edits []Edit) net.Buffers {
	out := make(net.Buffers, 0, 2*len(edits)+1)
	prev := 0
	for _, e := range edits {
		if e.Start > prev {
			out = append(out, body[prev:e.Start])
		}
		if len(e.Repl) > 0 {
			out = append(out, e.Repl)
		}
		prev = e.End
	}
	if prev < len(body) {
		out = append(out, body[prev:])
	}
	return out
}

// hexDigits are lowercase, as serde_json (Codex) writes \u00XX escapes.
const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string literal using the escaping
// serde_json uses: only `"`, `\` and control characters are escaped, and
// everything else, including non-ASCII UTF-8 and `<>&`, is copied as is.
// Matching Codex's encoder means a description we re-encode keeps the exact
// bytes of every part we did not edit, and the output is identical for
// identical input (the upstream prompt cache depends on that). The
// router's own error bodies use it too, so Codex reads them as it reads
// the API's.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
