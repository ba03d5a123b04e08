package routertest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"hpatch-router/jsonline"
)

// obj is a JSON object that keeps its key order, so generated events and
// items have stable bytes that tests can compare.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(p.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes without HTML escaping, as the real API does.
func marshal(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	return jsonline.Marshal(v)
}

func (o obj) with(k string, v any) obj {
	return append(append(obj(nil), o...), kv{k, v})
}

// eventBuilder accumulates the events of one response.
type eventBuilder struct {
	respID string
	events []obj
	output []json.RawMessage
}

func (b *eventBuilder) add(typ string, fields ...kv) {
	b.events = append(b.events, append(obj{{"type", typ}}, fields...))
}

// build renders a step's generated stream (without sequence numbers) and
// the final response object.
func build(s Step, respID, model string) (events []json.RawMessage, final json.RawMessage, err error) {
	b := &eventBuilder{respID: respID}
	b.add("response.created", kv{"response", responseObj(respID, model, "in_progress", nil, false)})
	for idx, it := range s.items() {
		if err := b.item(idx, it); err != nil {
			return nil, nil, err
		}
	}
	final, err = marshal(responseObj(respID, model, "completed", b.output, true))
	if err != nil {
		return nil, nil, err
	}
	if !s.OmitCompleted {
		b.add("response.completed", kv{"response", final})
	}
	for _, ev := range b.events {
		raw, err := marshal(ev)
		if err != nil {
			return nil, nil, err
		}
		events = append(events, raw)
	}
	return events, final, nil
}

func responseObj(id, model, status string, output []json.RawMessage, usage bool) obj {
	if output == nil {
		output = []json.RawMessage{}
	}
	o := obj{{"id", id}, {"object", "response"}, {"created_at", 1796200000}, {"status", status},
		{"model", model}, {"output", output}}
	if usage {
		o = o.with("usage", obj{{"input_tokens", 10}, {"input_tokens_details", obj{{"cached_tokens", 0}}},
			{"output_tokens", 5}, {"output_tokens_details", obj{{"reasoning_tokens", 0}}}, {"total_tokens", 15}})
	}
	return o
}

func (b *eventBuilder) done(idx int, item obj) error {
	raw, err := marshal(item)
	if err != nil {
		return err
	}
	b.add("response.output_item.done", kv{"output_index", idx}, kv{"item", json.RawMessage(raw)})
	b.output = append(b.output, raw)
	return nil
}

func (b *eventBuilder) item(idx int, it Item) error {
	switch {
	case it.CustomToolCall != nil:
		return b.customToolCall(idx, *it.CustomToolCall)
	case it.FunctionCall != nil:
		return b.functionCall(idx, *it.FunctionCall)
	case it.Message != nil:
		return b.message(idx, *it.Message)
	case it.Reasoning != nil:
		return b.reasoning(idx, *it.Reasoning)
	case len(it.Raw) > 0:
		b.add("response.output_item.added", kv{"output_index", idx}, kv{"item", it.Raw})
		b.add("response.output_item.done", kv{"output_index", idx}, kv{"item", it.Raw})
		b.output = append(b.output, it.Raw)
		return nil
	}
	return fmt.Errorf("output item %d is empty", idx)
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// customToolCall emits added, N input deltas, input done and item done. The
// item's key order is type, id, call_id, name, [namespace], input, status:
// different from the order Codex uses when it echoes the item, so a test
// can tell the model's bytes from Codex's.
func (b *eventBuilder) customToolCall(idx int, c CustomToolCall) error {
	id := orDefault(c.ID, fmt.Sprintf("ctc_%s_%d", b.respID, idx))
	base := obj{{"type", "custom_tool_call"}, {"id", id}, {"call_id", orDefault(c.CallID, fmt.Sprintf("call_%s_%d", b.respID, idx))}, {"name", c.Name}}
	if c.Namespace != "" {
		base = base.with("namespace", c.Namespace)
	}
	b.add("response.output_item.added", kv{"output_index", idx}, kv{"item", base.with("input", "").with("status", "in_progress")})
	for _, d := range split(c.Input, c.Deltas) {
		b.add("response.custom_tool_call_input.delta", kv{"item_id", id}, kv{"output_index", idx}, kv{"delta", d})
	}
	b.add("response.custom_tool_call_input.done", kv{"item_id", id}, kv{"output_index", idx}, kv{"input", c.Input})
	return b.done(idx, base.with("input", c.Input).with("status", "completed"))
}

func (b *eventBuilder) functionCall(idx int, c FunctionCall) error {
	id := orDefault(c.ID, fmt.Sprintf("fc_%s_%d", b.respID, idx))
	base := obj{{"type", "function_call"}, {"id", id}, {"call_id", orDefault(c.CallID, fmt.Sprintf("call_%s_%d", b.respID, idx))}, {"name", c.Name}}
	if c.Namespace != "" {
		base = base.with("namespace", c.Namespace)
	}
	b.add("response.output_item.added", kv{"output_index", idx}, kv{"item", base.with("arguments", "").with("status", "in_progress")})
	b.add("response.function_call_arguments.delta", kv{"item_id", id}, kv{"output_index", idx}, kv{"delta", c.Arguments})
	b.add("response.function_call_arguments.done", kv{"item_id", id}, kv{"output_index", idx}, kv{"arguments", c.Arguments})
	return b.done(idx, base.with("arguments", c.Arguments).with("status", "completed"))
}

func (b *eventBuilder) message(idx int, text string) error {
	id := fmt.Sprintf("msg_%s_%d", b.respID, idx)
	b.add("response.output_item.added", kv{"output_index", idx}, kv{"item",
		obj{{"type", "message"}, {"id", id}, {"status", "in_progress"}, {"role", "assistant"}, {"content", []any{}}}})
	part := obj{{"type", "output_text"}, {"annotations", []any{}}, {"text", ""}}
	b.add("response.content_part.added", kv{"item_id", id}, kv{"output_index", idx}, kv{"content_index", 0}, kv{"part", part})
	b.add("response.output_text.delta", kv{"item_id", id}, kv{"output_index", idx}, kv{"content_index", 0}, kv{"delta", text})
	b.add("response.output_text.done", kv{"item_id", id}, kv{"output_index", idx}, kv{"content_index", 0}, kv{"text", text})
	full := obj{{"type", "output_text"}, {"annotations", []any{}}, {"text", text}}
	b.add("response.content_part.done", kv{"item_id", id}, kv{"output_index", idx}, kv{"content_index", 0}, kv{"part", full})
	return b.done(idx, obj{{"type", "message"}, {"id", id}, {"status", "completed"}, {"role", "assistant"}, {"content", []any{full}}})
}

func (b *eventBuilder) reasoning(idx int, r Reasoning) error {
	id := orDefault(r.ID, fmt.Sprintf("rs_%s_%d", b.respID, idx))
	b.add("response.output_item.added", kv{"output_index", idx}, kv{"item", obj{{"type", "reasoning"}, {"id", id}, {"summary", []any{}}}})
	summary := []any{}
	for _, s := range r.Summary {
		summary = append(summary, obj{{"type", "summary_text"}, {"text", s}})
	}
	return b.done(idx, obj{{"type", "reasoning"}, {"id", id}, {"summary", summary}})
}

// split cuts s into n pieces of nearly equal byte length, never inside a
// UTF-8 sequence. An empty s gives no pieces.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	n = max(n, 1)
	size := max((len(s)+n-1)/n, 1)
	var out []string
	for len(s) > 0 {
		cut := min(size, len(s))
		for cut < len(s) && !isBoundary(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

func isBoundary(c byte) bool { return c&0xC0 != 0x80 }

// numbered adds sequence_number (after "type") to events that lack it,
// counting from 0 within the response.
func numbered(events []json.RawMessage, skip bool) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(events))
	for i, ev := range events {
		if skip || gjson.GetBytes(ev, "sequence_number").Exists() {
			out = append(out, ev)
			continue
		}
		typ := gjson.GetBytes(ev, "type")
		if typ.Index > 0 {
			// Splice right after the "type" member, like the real API.
			end := typ.Index + len(typ.Raw)
			ins := fmt.Sprintf(`,"sequence_number":%d`, i)
			ev = append(append(append(json.RawMessage(nil), ev[:end]...), ins...), ev[end:]...)
			out = append(out, ev)
			continue
		}
		ev, err := sjson.SetBytes(append(json.RawMessage(nil), ev...), "sequence_number", i)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}
