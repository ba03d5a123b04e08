package routertest

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// Request is one recorded request and, for POST …/responses, what the
// fake answered.
type Request struct {
	Index    int         // arrival order, from 0, over all requests
	Method   string      // GET, POST, …
	Path     string      // e.g. /v1/responses
	RawQuery string      // e.g. client_version=0.169.0
	Header   http.Header // as received
	Body     []byte      // as received (never decompressed)
	// Step is the index of the scenario step that answered, or -1 for the
	// default step and requests that are not POST …/responses.
	Step int
	// Events are the SSE data payloads sent back, with sequence numbers.
	Events []json.RawMessage
}

// IsResponses reports a POST …/responses request.
func (r Request) IsResponses() bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/responses")
}

// Kind is request_kind from the x-codex-turn-metadata header ("turn", …),
// or "".
func (r Request) Kind() string {
	return gjson.Get(r.Header.Get("X-Codex-Turn-Metadata"), "request_kind").String()
}

// Thread is the thread-id header.
func (r Request) Thread() string { return r.Header.Get("Thread-Id") }

// Get reads a gjson path from the body.
func (r Request) Get(path string) gjson.Result { return gjson.GetBytes(r.Body, path) }

// InputItems returns the body's input items as raw JSON, in order.
func (r Request) InputItems() []gjson.Result {
	return r.Get("input").Array()
}

// Tool is one tool definition found in a request, with where it sits.
type Tool struct {
	// Container is "tools" (top level), "additional_tools" (directly in an
	// additional_tools item) or the name of the namespace holding it.
	Container string
	// Item is the index of the additional_tools input item, or -1.
	Item int
	Def  gjson.Result
}

// Name is the tool's name.
func (t Tool) Name() string { return t.Def.Get("name").String() }

// Tools lists every tool definition: top-level tools, and tools inside
// additional_tools input items, flat or one namespace deep.
func (r Request) Tools() []Tool {
	var out []Tool
	collect := func(list gjson.Result, container string, item int) {
		for _, d := range list.Array() {
			if d.Get("type").String() == "namespace" {
				ns := d.Get("name").String()
				for _, nd := range d.Get("tools").Array() {
					out = append(out, Tool{Container: ns, Item: item, Def: nd})
				}
				continue
			}
			out = append(out, Tool{Container: container, Item: item, Def: d})
		}
	}
	collect(r.Get("tools"), "tools", -1)
	for i, it := range r.InputItems() {
		if it.Get("type").String() == "additional_tools" {
			collect(it.Get("tools"), "additional_tools", i)
		}
	}
	return out
}

// FindTools returns the tools with this name, in request order (the last
// one is the latest definition).
func (r Request) FindTools(name string) []Tool {
	var out []Tool
	for _, t := range r.Tools() {
		if t.Name() == name {
			out = append(out, t)
		}
	}
	return out
}

// FindItems returns the input items of this type whose call_id matches
// (any call_id when callID is "").
func (r Request) FindItems(typ, callID string) []gjson.Result {
	var out []gjson.Result
	for _, it := range r.InputItems() {
		if it.Get("type").String() != typ {
			continue
		}
		if callID != "" && it.Get("call_id").String() != callID {
			continue
		}
		out = append(out, it)
	}
	return out
}

// OutputText joins the text of a *_call_output item: the string itself, or
// the text of every input_text part of an array, in order.
func OutputText(item gjson.Result) string {
	out := item.Get("output")
	if out.Type == gjson.String {
		return out.String()
	}
	var b strings.Builder
	for _, p := range out.Array() {
		b.WriteString(p.Get("text").String())
	}
	return b.String()
}

// EmittedItems returns the items this response carried in its
// response.output_item.done events, as raw JSON, in order.
func (r Request) EmittedItems() []json.RawMessage {
	var out []json.RawMessage
	for _, ev := range r.Events {
		if gjson.GetBytes(ev, "type").String() == "response.output_item.done" {
			out = append(out, json.RawMessage(gjson.GetBytes(ev, "item").Raw))
		}
	}
	return out
}
