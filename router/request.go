package router

import (
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
// the same output bytes.
func RewriteRequest(body []byte) ([]byte, RequestInfo, error) {
	var info RequestInfo
	if !gjson.ValidBytes(body) {
		return nil, info, invalidRequest(CodeInvalidJSON, "request body is not valid JSON")
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, info, invalidRequest(CodeInvalidJSON, "request body is not a JSON object")
	}
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
	for _, o := range owners {
		e, shape, err := ownerEdits(body, o)
		if err != nil {
			return nil, info, err
		}
		edits = append(edits, e...)
		info.Namespace = o.namespace
		info.ParamNames = shape.Names
		info.ParamsShape = shape.Fields
	}
	info.Owned = true
	info.Rewritten = len(owners)
	return splice(body, edits), info, nil
}

// ownerEdits computes the two edits for one owner: the trimmed description
// and the injected tools right after the exec object.
func ownerEdits(body []byte, o owner) ([]edit, paramsShape, error) {
	var edits []edit
	var shape paramsShape
	if d := o.tool.Get("description"); d.Type == gjson.String {
		t := trimExecDescription(d.String())
		shape = t.Shape
		if t.Description != d.Str {
			edits = append(edits, edit{d.Index, d.Index + len(d.Raw), appendJSONString(nil, t.Description)})
		}
	}
	shell, err := shellTool(shape)
	if err != nil {
		return nil, shape, err
	}
	end := o.tool.Index + len(o.tool.Raw)
	if end > len(body) || string(body[o.tool.Index:end]) != o.tool.Raw {
		// gjson gives absolute offsets for plain paths; guard anyway so a
		// wrong offset can never corrupt a forwarded request.
		return nil, shape, invalidRequest(CodeInvalidJSON, "cannot locate the exec tool in the request body")
	}
	hp := plugins.HpatchTool()
	ins := make([]byte, 0, len(shell)+len(hp)+2)
	ins = append(append(append(append(ins, ','), shell...), ','), hp...)
	return append(edits, edit{end, end, ins}), shape, nil
}

// shellTool renders the `shell` tool with the request's #!params shape
// appended to the base description.
func shellTool(shape paramsShape) ([]byte, error) {
	tool := plugins.ShellTool()
	if shape.Fields == "" {
		return tool, nil
	}
	desc := plugins.ShellDescription() + plugins.ParamsSection(shape.Fields, shape.TypeScript)
	return sjson.SetRawBytes(tool, "description", appendJSONString(nil, desc))
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
