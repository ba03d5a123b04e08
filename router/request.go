package router

import (
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"hpatch-router/plugins"
)

// RequestInfo is what RewriteRequest learned about a Responses request; the
// response rewrite needs it to build carriers for this request's owner.
type RequestInfo struct {
	// Owned reports that the request has a Code Mode exec owner, so the
	// `shell` and `hpatch` tools were injected.
	Owned bool
	// Namespace is the owner's namespace as carrier calls must name it:
	// "functions" (Codex ≥0.147) or "" for the flat 0.144–0.146 layout.
	// With several definitions, the latest one wins, as in Codex.
	Namespace string
	// ParamNames are the exec_command argument names except cmd, from the
	// latest owner description, in declaration order (for
	// shebang.Options.ParamsShape). Empty when no shape was recognized.
	ParamNames []string
	// ParamsShape is the sanitized shape text appended under #!params.
	ParamsShape string
	// Rewritten counts the exec definitions rewritten (one per
	// additional_tools item that declares the owner).
	Rewritten int
}

// owner is one Code Mode exec definition found in an additional_tools item.
type owner struct {
	namespace string       // "functions" or "" (flat)
	tool      gjson.Result // the exec tool object; Index is its offset in the body
}

// edit replaces body[start:end] with repl; an insertion has start == end.
type edit struct {
	start, end int
	repl       []byte
}

// RewriteRequest rewrites a POST /responses body for the hpatch mode
// (DESIGN §3, A13, A14). It finds every Code Mode exec definition in the
// `input` items of type additional_tools, trims its exec_command section and
// nested example, and injects `shell` and `hpatch` right after it in the
// same container. Only those spans change: every other byte is copied from
// body, so siblings, other items and instructions stay byte-identical and
// the upstream prompt cache keeps its prefix.
//
// A body without an owner is returned unchanged (the same slice). Layouts
// the router cannot own are rejected with an *Error carrying HTTP 400
// before anything is forwarded. The function is pure: the same input gives
// the same output bytes. RequestRewriter does the same with a memo of
// rewritten exec definitions.
func RewriteRequest(body []byte) ([]byte, RequestInfo, error) {
	return rewriteRequest(body, nil)
}

// rewriteRequest is RewriteRequest with an optional memo of per-owner
// rewrites (nil: compute each one).
func rewriteRequest(body []byte, memo *RequestRewriter) ([]byte, RequestInfo, error) {
	var info RequestInfo
	if !gjson.ValidBytes(body) {
		return nil, info, invalidRequest(CodeInvalidJSON, "request body is not valid JSON")
	}
	// Read through a string view of body instead of gjson.ParseBytes,
	// which copies the whole body. Every Result below aliases body, which
	// is never modified; anything kept past this call (memo entries,
	// RequestInfo) is cloned or freshly built.
	root := gjson.Parse(unsafe.String(unsafe.SliceData(body), len(body)))
	if !root.IsObject() {
		return nil, info, invalidRequest(CodeInvalidJSON, "request body is not a JSON object")
	}
	// Parse leaves Index at 0 even when whitespace precedes the object;
	// nested offsets are relative to it, so anchor it at the real start.
	root.Index = len(body) - len(root.Raw)
	var tools, input gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "tools":
			tools = v
		case "input":
			input = v
		}
		return true
	})
	topInjected, err := checkTopLevelTools(tools)
	if err != nil {
		return nil, info, err
	}
	owners, err := findOwners(input, topInjected)
	if err != nil {
		return nil, info, err
	}
	if len(owners) == 0 {
		return body, info, nil
	}
	edits := make([]edit, 0, 2*len(owners))
	var shape paramsShape
	for _, o := range owners {
		if o.tool.Index+len(o.tool.Raw) > len(body) || string(body[o.tool.Index:o.tool.Index+len(o.tool.Raw)]) != o.tool.Raw {
			// gjson gives absolute offsets for plain paths; guard anyway so
			// a wrong offset can never corrupt a forwarded request.
			return nil, info, invalidRequest(CodeInvalidJSON, "cannot locate the exec tool in the request body")
		}
		var rw *ownerRewrite
		if memo != nil {
			rw, err = memo.ownerRewrite(o.tool)
		} else {
			rw, err = newOwnerRewrite(o.tool)
		}
		if err != nil {
			return nil, info, err
		}
		edits = rw.appendEdits(edits, o.tool.Index)
		info.Namespace = strings.Clone(o.namespace)
		shape = rw.shape
	}
	info.Owned = true
	info.Rewritten = len(owners)
	info.ParamNames = append([]string(nil), shape.Names...)
	info.ParamsShape = shape.Fields
	return splice(body, edits), info, nil
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
	shape              paramsShape
}

// newOwnerRewrite trims the exec description and renders the injected
// tools with the #!params shape taken from it.
func newOwnerRewrite(tool gjson.Result) (*ownerRewrite, error) {
	rw := &ownerRewrite{toolLen: len(tool.Raw)}
	if d := tool.Get("description"); d.Type == gjson.String {
		t := trimExecDescription(d.String())
		rw.shape = t.Shape
		for i, n := range rw.shape.Names {
			// Names are substrings of the description, which may alias
			// the request body; a memo entry must not pin that body.
			rw.shape.Names[i] = strings.Clone(n)
		}
		if t.Description != d.Str {
			rw.descStart = d.Index - tool.Index
			rw.descEnd = rw.descStart + len(d.Raw)
			rw.descRepl = appendJSONString(make([]byte, 0, len(d.Raw)+64), t.Description)
		}
	}
	shell, err := shellTool(rw.shape)
	if err != nil {
		return nil, err
	}
	hp := plugins.HpatchTool()
	ins := make([]byte, 0, len(shell)+len(hp)+2)
	rw.insert = append(append(append(append(ins, ','), shell...), ','), hp...)
	return rw, nil
}

// appendEdits adds this rewrite's edits for an exec object found at offset
// at in the body.
func (rw *ownerRewrite) appendEdits(edits []edit, at int) []edit {
	if rw.descRepl != nil {
		edits = append(edits, edit{at + rw.descStart, at + rw.descEnd, rw.descRepl})
	}
	return append(edits, edit{at + rw.toolLen, at + rw.toolLen, rw.insert})
}

// shellTool renders the `shell` tool with the request's #!params shape
// appended to the base description.
func shellTool(shape paramsShape) ([]byte, error) {
	tool := plugins.ShellTool()
	if shape.Fields == "" {
		return tool, nil
	}
	desc := plugins.ShellDescription() + plugins.ParamsSection(shape.Fields, shape.TypeScript)
	return sjson.SetRawBytes(tool, "description", appendJSONString(make([]byte, 0, len(desc)+64), desc))
}

// splice applies edits, which are ordered and non-overlapping, copying all
// other bytes of body unchanged into one new buffer.
func splice(body []byte, edits []edit) []byte {
	n := len(body)
	for _, e := range edits {
		n += len(e.repl) - (e.end - e.start)
	}
	out := make([]byte, 0, n)
	prev := 0
	for _, e := range edits {
		out = append(out, body[prev:e.start]...)
		out = append(out, e.repl...)
		prev = e.end
	}
	return append(out, body[prev:]...)
}
