package routertest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"hpatch-router/router/routertest"
)

// post sends body to u's /v1/responses with headers and returns the
// response and its parsed events.
func post(t *testing.T, u *routertest.Upstream, body string, headers map[string]string) (*http.Response, []routertest.Event) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u.URL()+"/responses", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, nil
	}
	evs, err := routertest.ParseSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, evs
}

func types(evs []routertest.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type())
	}
	return out
}

func checkSequence(t *testing.T, evs []routertest.Event) {
	t.Helper()
	for i, e := range evs {
		if e.Seq() != int64(i) {
			t.Errorf("event %d (%s): sequence_number %d, want %d", i, e.Type(), e.Seq(), i)
		}
		if e.Name != e.Type() {
			t.Errorf("event %d: event field %q, data type %q", i, e.Name, e.Type())
		}
		if !strings.HasPrefix(string(e.Data), `{"type":`) {
			t.Errorf("event %d: data does not start with type: %s", i, e.Data)
		}
	}
}

func TestCustomToolCallStream(t *testing.T) {
	input := "#!python3\nfor i in range(3):\n    print('é', i)\n"
	u := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{{
		CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_1", ID: "ctc_1", Input: input},
		Deltas:         4,
	}}})
	_, evs := post(t, u, `{"model":"m","stream":true}`, nil)
	checkSequence(t, evs)

	want := []string{"response.created", "response.output_item.added",
		"response.custom_tool_call_input.delta", "response.custom_tool_call_input.delta",
		"response.custom_tool_call_input.delta", "response.custom_tool_call_input.delta",
		"response.custom_tool_call_input.done", "response.output_item.done", "response.completed"}
	if got := types(evs); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("event types\n got %v\nwant %v", got, want)
	}
	var joined string
	for _, e := range evs {
		if e.Type() == "response.custom_tool_call_input.delta" {
			joined += gjson.GetBytes(e.Data, "delta").String()
		}
	}
	if joined != input {
		t.Errorf("deltas join to %q, want %q", joined, input)
	}
	added := gjson.GetBytes(evs[1].Data, "item")
	if added.Get("input").String() != "" || added.Get("status").String() != "in_progress" || added.Get("namespace").String() != "functions" {
		t.Errorf("added item: %s", added.Raw)
	}
	done := gjson.GetBytes(evs[7].Data, "item").Raw
	wantDone := `{"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"shell","namespace":"functions","input":"#!python3\nfor i in range(3):\n    print('é', i)\n","status":"completed"}`
	if done != wantDone {
		t.Errorf("done item\n got %s\nwant %s", done, wantDone)
	}
	completed := gjson.GetBytes(evs[8].Data, "response")
	if completed.Get("output.0").Raw != done || completed.Get("status").String() != "completed" || completed.Get("model").String() != "m" {
		t.Errorf("completed response: %s", completed.Raw)
	}
	if got := u.Posts()[0].EmittedItems(); len(got) != 1 || string(got[0]) != done {
		t.Errorf("EmittedItems = %s", got)
	}
}

func TestStepShapes(t *testing.T) {
	msg := "thinking done"
	tests := []struct {
		name string
		step routertest.Step
		want []string
	}{
		{"message", routertest.Step{Message: "hi"}, []string{"response.created",
			"response.output_item.added", "response.content_part.added", "response.output_text.delta",
			"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}},
		{"function call", routertest.Step{FunctionCall: &routertest.FunctionCall{Name: "wait", Namespace: "functions", Arguments: `{"cell_id":"1"}`}},
			[]string{"response.created", "response.output_item.added",
				"response.function_call_arguments.delta", "response.function_call_arguments.done",
				"response.output_item.done", "response.completed"}},
		{"items in order", routertest.Step{Items: []routertest.Item{
			{Reasoning: &routertest.Reasoning{Summary: []string{"s"}}},
			{Message: &msg},
			{Raw: json.RawMessage(`{"type":"web_search_call","id":"ws_1","status":"completed"}`)},
		}}, []string{"response.created",
			"response.output_item.added", "response.output_item.done",
			"response.output_item.added", "response.content_part.added", "response.output_text.delta",
			"response.output_text.done", "response.content_part.done", "response.output_item.done",
			"response.output_item.added", "response.output_item.done", "response.completed"}},
		{"event gaps", routertest.Step{Message: "slow", EventDelayMS: 1}, []string{"response.created",
			"response.output_item.added", "response.content_part.added", "response.output_text.delta",
			"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}},
		{"omit completed", routertest.Step{Message: "x", OmitCompleted: true}, []string{"response.created",
			"response.output_item.added", "response.content_part.added", "response.output_text.delta",
			"response.output_text.done", "response.content_part.done", "response.output_item.done"}},
		{"raw events", routertest.Step{Events: []json.RawMessage{
			json.RawMessage(`{"type":"response.output_item.done","output_index":0,"item":{"type":"message"}}`),
			json.RawMessage(`{"type":"response.completed","response":{"id":"r","output":[]}}`),
		}}, []string{"response.output_item.done", "response.completed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{tt.step}})
			_, evs := post(t, u, `{}`, nil)
			checkSequence(t, evs)
			if got := types(evs); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("event types\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestSequenceNumbersKeptOrOmitted(t *testing.T) {
	u := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		{Events: []json.RawMessage{json.RawMessage(`{"type":"response.completed","sequence_number":7,"response":{}}`)}},
		{Message: "x", NoSequence: true},
	}})
	_, evs := post(t, u, `{}`, nil)
	if len(evs) != 1 || evs[0].Seq() != 7 {
		t.Errorf("explicit sequence_number not kept: %v", evs)
	}
	_, evs = post(t, u, `{}`, nil)
	for _, e := range evs {
		if e.Seq() != -1 {
			t.Errorf("NoSequence event has sequence_number: %s", e.Data)
		}
	}
}

func TestRecordsRequests(t *testing.T) {
	u := routertest.NewUpstream(t, routertest.Scenario{
		Steps:  []routertest.Step{{Message: "one", Headers: map[string]string{"x-codex-turn-state": "ts-1"}}},
		Models: json.RawMessage(`{"models":[{"slug":"m"}]}`),
	})
	resp, _ := post(t, u, `{"input":[]}`, map[string]string{"thread-id": "th-1", "x-codex-turn-metadata": `{"request_kind":"turn"}`})
	if got := resp.Header.Get("x-codex-turn-state"); got != "ts-1" {
		t.Errorf("step header: got %q", got)
	}
	post(t, u, `{"second":true}`, nil)

	get, err := http.Get(u.URL() + "/models?client_version=0.169.0")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(get.Body)
	get.Body.Close()
	if string(body) != `{"models":[{"slug":"m"}]}` || get.Header.Get("ETag") != `"fake-models-1"` {
		t.Errorf("models: %q etag %q", body, get.Header.Get("ETag"))
	}

	ws, _ := http.NewRequest(http.MethodGet, u.URL()+"/responses", nil)
	ws.Header.Set("Upgrade", "websocket")
	ws.Header.Set("Connection", "Upgrade")
	wsResp, err := http.DefaultClient.Do(ws)
	if err != nil {
		t.Fatal(err)
	}
	wsResp.Body.Close()
	if wsResp.StatusCode != http.StatusNotFound {
		t.Errorf("websocket upgrade: status %d", wsResp.StatusCode)
	}

	all := u.Requests()
	if len(all) != 4 {
		t.Fatalf("recorded %d requests, want 4", len(all))
	}
	r0 := all[0]
	if r0.Index != 0 || r0.Path != "/v1/responses" || string(r0.Body) != `{"input":[]}` || r0.Thread() != "th-1" || r0.Kind() != "turn" || r0.Step != 0 {
		t.Errorf("request 0: %+v", r0)
	}
	if all[1].Step != -1 || len(all[1].EmittedItems()) != 1 {
		t.Errorf("request 1 should get the default message: step %d items %s", all[1].Step, all[1].EmittedItems())
	}
	if all[2].Method != http.MethodGet || all[2].RawQuery != "client_version=0.169.0" {
		t.Errorf("request 2: %s %s?%s", all[2].Method, all[2].Path, all[2].RawQuery)
	}
	if n := len(u.Posts()); n != 2 {
		t.Errorf("Posts: %d, want 2", n)
	}
	if u.Remaining() != 0 {
		t.Errorf("Remaining = %d", u.Remaining())
	}
}

func TestRequestDependentSteps(t *testing.T) {
	u := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		{
			FunctionCall: &routertest.FunctionCall{Name: "wait", Arguments: `{"cell_id":"{{cell}}"}`, CallID: "{{call}}"},
			Subst:        map[string]string{"cell": `cell ID ([0-9]+)`},
			SubstJSON:    map[string]string{"call": `input.#(type=="custom_tool_call_output").call_id`},
		},
		{Func: func(r routertest.Request) (routertest.Step, error) {
			return routertest.Step{Message: "kind=" + r.Kind() + " quote=\"" + r.Get("q").String()}, nil
		}},
	}})
	body := `{"input":[{"type":"custom_tool_call_output","call_id":"call_\"7","output":"Script running with cell ID 2\n… cell ID 3"}]}`
	_, evs := post(t, u, body, nil)
	item := gjson.GetBytes(evs[len(evs)-2].Data, "item")
	if item.Get("arguments").String() != `{"cell_id":"3"}` || item.Get("call_id").String() != `call_"7` {
		t.Errorf("substituted item: %s", item.Raw)
	}
	_, evs = post(t, u, `{"q":"<&>"}`, map[string]string{"x-codex-turn-metadata": `{"request_kind":"compact"}`})
	text := gjson.GetBytes(evs[len(evs)-1].Data, "response.output.0.content.0.text").String()
	if text != `kind=compact quote="<&>` {
		t.Errorf("Func step text %q", text)
	}
}

func TestWhenRequestKind(t *testing.T) {
	u := routertest.NewUpstream(t, routertest.Scenario{
		Steps:   []routertest.Step{{Message: "turn answer", WhenRequestKind: "turn"}},
		Default: &routertest.Step{Message: "other"},
	})
	text := func(evs []routertest.Event) string {
		return gjson.GetBytes(evs[len(evs)-1].Data, "response.output.0.content.0.text").String()
	}
	if _, evs := post(t, u, `{}`, map[string]string{"x-codex-turn-metadata": `{"request_kind":"title"}`}); text(evs) != "other" {
		t.Errorf("non-turn request got %q", text(evs))
	}
	if _, evs := post(t, u, `{}`, map[string]string{"x-codex-turn-metadata": `{"request_kind":"turn"}`}); text(evs) != "turn answer" {
		t.Errorf("turn request got %q", text(evs))
	}
}

func TestErrorStatusAndJSON(t *testing.T) {
	u := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		{Status: http.StatusTooManyRequests, Headers: map[string]string{"retry-after": "1"}},
		{Status: http.StatusBadGateway, Body: json.RawMessage(`{"error":{"message":"boom"}}`)},
		{Message: "json please"},
	}})
	resp, _ := post(t, u, `{}`, nil)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("status %d retry-after %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	resp, _ = post(t, u, `{}`, nil)
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d", resp.StatusCode)
	}

	req, _ := http.NewRequest(http.MethodPost, u.URL()+"/responses", strings.NewReader(`{"stream":false}`))
	jr, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(jr.Body)
	jr.Body.Close()
	if jr.Header.Get("Content-Type") != "application/json" || gjson.GetBytes(body, "output.0.content.0.text").String() != "json please" ||
		gjson.GetBytes(body, "status").String() != "completed" {
		t.Errorf("non-streaming answer: %s", body)
	}
}

func TestInvalidScenario(t *testing.T) {
	empty := routertest.Item{}
	if _, err := routertest.New(routertest.Scenario{Steps: []routertest.Step{{Items: []routertest.Item{empty}}}}); err == nil {
		t.Error("an empty item was accepted")
	}
	if _, err := routertest.New(routertest.Scenario{Steps: []routertest.Step{{Events: []json.RawMessage{json.RawMessage(`[1]`)}}}}); err == nil {
		t.Error("a non-object event was accepted")
	}
	if _, err := routertest.ParseScenario([]byte(`[{"mesage":"typo"}]`)); err == nil {
		t.Error("an unknown step key was accepted")
	}
}

func TestFuncErrorIsReported(t *testing.T) {
	u, err := routertest.New(routertest.Scenario{Steps: []routertest.Step{{
		Func: func(routertest.Request) (routertest.Step, error) { return routertest.Step{}, io.ErrUnexpectedEOF },
	}}})
	if err != nil {
		t.Fatal(err)
	}
	u.Start()
	defer u.Close()
	resp, _ := post(t, u, `{}`, nil)
	if resp.StatusCode != http.StatusInternalServerError || len(u.Errors()) != 1 {
		t.Errorf("status %d errors %v", resp.StatusCode, u.Errors())
	}
}

func TestParseScenarioForms(t *testing.T) {
	list := `[{"custom_tool_call":{"name":"exec","namespace":"functions","input":"x","call_id":"c","id":"i"},"deltas":3},{"message":"final answer"}]`
	sc, err := routertest.ParseScenario([]byte(list))
	if err != nil || len(sc.Steps) != 2 || sc.Steps[0].Deltas != 3 || sc.Steps[1].Message != "final answer" {
		t.Fatalf("bare list: %+v, %v", sc, err)
	}
	obj := `{"description":"d","steps":[{"message":"m"}],"models":{"models":[]},"default":{"message":"z"}}`
	sc, err = routertest.ParseScenario([]byte(obj))
	if err != nil || sc.Description != "d" || sc.Default == nil || string(sc.Models) != `{"models":[]}` {
		t.Fatalf("object: %+v, %v", sc, err)
	}
}
