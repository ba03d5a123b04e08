package request

import (
	"unsafe"

	"github.com/tidwall/gjson"

	"hpatch-router/workspace"
)

// ExecTool is the name of Codex's Code Mode tool: the owner the rewrite
// looks for, and the name a carrier call carries.
const ExecTool = "exec"

// Parsed is a Responses request body read once for every stage after
// it: the replay restore and the history read its exec calls, settle its
// tool calls and outputs, the owner search its additional_tools items and
// top-level tools, a workspace hpatch call its Workspace. gjson reads Body
// in place (see Parse), so what a stage keeps beyond the request it
// clones; every Index is an offset into Body.
type Parsed struct {
	Body     []byte
	hasTools bool         // the body has a top-level tools member
	tools    gjson.Result // its value
	// The items of the top-level input array that the stages read, in
	// input order.
	additional []Item // type additional_tools
	// ExecCalls are the custom_tool_call items named exec: carriers Codex
	// echoes, or the model's own exec calls.
	ExecCalls []Item
	// ToolCalls and ToolOutputs are every custom_tool_call and
	// custom_tool_call_output, for settle.
	ToolCalls   []gjson.Result
	ToolOutputs []gjson.Result
	// Workspace is where the turn runs: the cwd and workspace roots of
	// the last environment_context item Codex wrote (codexEnvContext), or
	// the zero Env.
	Workspace workspace.Env
}

// Item is one object of the request's input array.
type Item struct {
	Pos int64 // position in input, for error messages
	gjson.Result
	CallID string // an exec call's call_id, read once for every stage (aliases Body)
}

// Parse validates body as a JSON object and reads what the stages need in
// one walk of its members and input items. As with a decoder that keeps
// the last of duplicate keys, a repeated top-level key replaces the
// earlier one (gjson's Get would read the first). An input that is not an
// array has no items. Within an item, type and name are the first of
// their keys, as gjson's Get reads them. A body that is not a JSON object
// is an *Error with CodeInvalidJSON.
func Parse(body []byte) (*Parsed, error) {
	if !gjson.ValidBytes(body) {
		return nil, invalid(CodeInvalidJSON, "request body is not valid JSON")
	}
	// The body is never written after it is read, so gjson can read it as
	// a string without a copy: a 1 MB conversation is not held twice.
	doc := gjson.Parse(unsafe.String(unsafe.SliceData(body), len(body))) // Parse counts leading whitespace in Index
	if !doc.IsObject() {
		return nil, invalid(CodeInvalidJSON, "request body is not a JSON object")
	}
	r := &Parsed{Body: body}
	var input gjson.Result
	doc.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "tools":
			r.tools, r.hasTools = v, true
		case "input":
			input = v
		}
		return true
	})
	if !input.IsArray() {
		return r, nil
	}
	var envContext string
	input.ForEach(func(k, it gjson.Result) bool {
		if !it.IsObject() {
			return true
		}
		switch it.Get("type").String() {
		case "additional_tools":
			r.additional = append(r.additional, Item{Pos: k.Int(), Result: it})
		case "custom_tool_call":
			r.ToolCalls = append(r.ToolCalls, it)
			if it.Get("name").String() == ExecTool {
				r.ExecCalls = append(r.ExecCalls, Item{k.Int(), it, it.Get("call_id").String()})
			}
		case "custom_tool_call_output":
			r.ToolOutputs = append(r.ToolOutputs, it)
		case "message":
			if text, ok := codexEnvContext(it); ok {
				envContext = text
			}
		}
		return true
	})
	r.Workspace = parseEnvContext(envContext)
	return r, nil
}
