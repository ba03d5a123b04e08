package routertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// Scenario is what the fake upstream plays: Steps answer the POST
// …/responses requests in order; Default answers every request after them.
type Scenario struct {
	Description string `json:"description,omitempty"`
	Steps       []Step `json:"steps"`
	// Default answers requests once Steps are used up; nil means an
	// assistant message "done".
	Default *Step `json:"default,omitempty"`
	// Models is the body of GET …/models (Codex's {"models":[…]} format);
	// nil means {"models":[]}.
	Models json.RawMessage `json:"models,omitempty"`
	// ModelsETag is the ETag header sent with Models; empty means
	// "fake-models-1" (quoted).
	ModelsETag string `json:"models_etag,omitempty"`
}

// Step is one response. Its output items are Items followed by the
// shorthand fields, in the order CustomToolCall, FunctionCall, Message,
// ThenMessage (the format of the shared capture scripts).
type Step struct {
	Items          []Item          `json:"items,omitempty"`
	CustomToolCall *CustomToolCall `json:"custom_tool_call,omitempty"`
	FunctionCall   *FunctionCall   `json:"function_call,omitempty"`
	Message        string          `json:"message,omitempty"`
	ThenMessage    string          `json:"then_message,omitempty"`
	// Deltas splits the shorthand CustomToolCall input into this many
	// custom_tool_call_input.delta events (default 1).
	Deltas int `json:"deltas,omitempty"`

	// Events replaces the generated stream with these raw events. Each gets
	// a sequence_number unless it has one or NoSequence is set.
	Events []json.RawMessage `json:"events,omitempty"`
	// NoSequence leaves sequence_number out of every event.
	NoSequence bool `json:"no_sequence_number,omitempty"`
	// OmitCompleted ends the stream without response.completed (Codex
	// then treats it as a disconnect and retries).
	OmitCompleted bool `json:"omit_completed,omitempty"`

	// Headers are extra HTTP response headers.
	Headers map[string]string `json:"headers,omitempty"`
	// Status, when not 0 or 200, answers with that HTTP status and Body
	// (default: an OpenAI-shaped error object) instead of a stream.
	Status int             `json:"status,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
	// DelayMS sleeps before the response headers are sent.
	DelayMS int `json:"delay_ms,omitempty"`
	// EventDelayMS sleeps between two events of the stream (after the
	// headers and first event are flushed), e.g. to keep a stream open
	// while something else happens.
	EventDelayMS int `json:"event_delay_ms,omitempty"`

	// WhenRequestKind makes the step answer only requests whose
	// x-codex-turn-metadata request_kind matches; other requests get the
	// Default without using the step.
	WhenRequestKind string `json:"when_request_kind,omitempty"`
	// Subst maps NAME to a regular expression with one group searched in
	// the request body; every "{{NAME}}" in the step's strings becomes the
	// group of the last match ("" when there is none).
	Subst map[string]string `json:"subst,omitempty"`
	// SubstJSON maps NAME to a gjson path over the request body; every
	// "{{NAME}}" becomes the string value found there.
	SubstJSON map[string]string `json:"subst_json,omitempty"`
	// Func, when set, builds the step to play from the request; the
	// returned step's own Func is ignored.
	Func func(Request) (Step, error) `json:"-"`
}

// Item is one output item; exactly one field is set.
type Item struct {
	Message        *string         `json:"message,omitempty"`
	CustomToolCall *CustomToolCall `json:"custom_tool_call,omitempty"`
	FunctionCall   *FunctionCall   `json:"function_call,omitempty"`
	Reasoning      *Reasoning      `json:"reasoning,omitempty"`
	// Raw is emitted verbatim in output_item.added and output_item.done.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// CustomToolCall is a free-form tool call item. Empty ID and CallID get
// generated values; an empty Namespace is left out of the item.
type CustomToolCall struct {
	ID        string `json:"id,omitempty"`
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Input     string `json:"input"`
	// Deltas splits Input into this many delta events (default 1).
	Deltas int `json:"deltas,omitempty"`
}

// FunctionCall is a JSON-arguments tool call item (e.g. Code Mode `wait`).
type FunctionCall struct {
	ID        string `json:"id,omitempty"`
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Arguments string `json:"arguments"`
}

// Reasoning is a reasoning item with summary texts.
type Reasoning struct {
	ID      string   `json:"id,omitempty"`
	Summary []string `json:"summary,omitempty"`
}

// LoadScenario reads a scenario file: a Scenario object, or a bare JSON
// list of steps.
func LoadScenario(path string) (Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, err
	}
	sc, err := ParseScenario(data)
	if err != nil {
		return Scenario{}, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// ParseScenario decodes a Scenario object or a bare JSON list of steps.
// Unknown fields are errors, so a misspelt step key does not pass silently.
func ParseScenario(data []byte) (Scenario, error) {
	var sc Scenario
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err := strictDecode(data, &sc.Steps)
		return sc, err
	}
	err := strictDecode(data, &sc)
	return sc, err
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// items returns the step's output items in emission order.
func (s Step) items() []Item {
	out := append([]Item(nil), s.Items...)
	if s.CustomToolCall != nil {
		c := *s.CustomToolCall
		if c.Deltas == 0 {
			c.Deltas = s.Deltas
		}
		out = append(out, Item{CustomToolCall: &c})
	}
	if s.FunctionCall != nil {
		out = append(out, Item{FunctionCall: s.FunctionCall})
	}
	for _, m := range []string{s.Message, s.ThenMessage} {
		if m != "" {
			out = append(out, Item{Message: &m})
		}
	}
	return out
}

// resolve turns a step into the one to play for req: Func first, then
// Subst and SubstJSON over the step's strings.
func (s Step) resolve(req Request) (Step, error) {
	if s.Func != nil {
		next, err := s.Func(req)
		if err != nil {
			return Step{}, fmt.Errorf("step func: %w", err)
		}
		next.Func = nil
		s = next
	}
	if len(s.Subst) == 0 && len(s.SubstJSON) == 0 {
		return s, nil
	}
	values := map[string]string{}
	for name, expr := range s.Subst {
		rx, err := regexp.Compile(expr)
		if err != nil {
			return Step{}, fmt.Errorf("subst %s: %w", name, err)
		}
		if rx.NumSubexp() < 1 {
			return Step{}, fmt.Errorf("subst %s: %q has no group", name, expr)
		}
		values[name] = ""
		if all := rx.FindAllSubmatch(req.Body, -1); len(all) > 0 {
			values[name] = string(all[len(all)-1][1])
		}
	}
	for name, path := range s.SubstJSON {
		values[name] = gjson.GetBytes(req.Body, path).String()
	}
	s.Subst, s.SubstJSON = nil, nil
	return s.fill(values)
}

// fill replaces {{NAME}} inside the step's JSON strings. The values are
// JSON-escaped, so they land inside strings intact.
func (s Step) fill(values map[string]string) (Step, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return Step{}, err
	}
	for name, v := range values {
		esc, err := json.Marshal(v)
		if err != nil {
			return Step{}, err
		}
		data = bytes.ReplaceAll(data, []byte("{{"+name+"}}"), esc[1:len(esc)-1])
	}
	var out Step
	if err := json.Unmarshal(data, &out); err != nil {
		return Step{}, fmt.Errorf("after substitution: %w", err)
	}
	return out, nil
}

// validate reports a step that cannot be played.
func (s Step) validate() error {
	var errs []error
	for i, it := range s.items() {
		n := 0
		for _, set := range []bool{it.Message != nil, it.CustomToolCall != nil, it.FunctionCall != nil, it.Reasoning != nil, len(it.Raw) > 0} {
			if set {
				n++
			}
		}
		if n != 1 {
			errs = append(errs, fmt.Errorf("item %d sets %d kinds, want exactly 1", i, n))
		}
		if len(it.Raw) > 0 && !json.Valid(it.Raw) {
			errs = append(errs, fmt.Errorf("item %d: raw item is not JSON", i))
		}
	}
	for i, ev := range s.Events {
		if !gjson.ValidBytes(ev) || !strings.HasPrefix(strings.TrimSpace(string(ev)), "{") {
			errs = append(errs, fmt.Errorf("event %d is not a JSON object", i))
		}
	}
	return errors.Join(errs...)
}
