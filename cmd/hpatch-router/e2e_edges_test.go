package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"hpatch-router/router/routertest"
)

// TestE2EShortBody (issue 33 case 9): a client that declares a
// Content-Length, sends less and half-closes the connection gets 400 in
// the OpenAI error shape from the real router, and nothing is forwarded.
// Before, it got an empty 200.
func TestE2EShortBody(t *testing.T) {
	t.Parallel()
	up := routertest.NewUpstream(t, routertest.Scenario{})
	r := startRouter(t, routerSpec{binDir: e2eBins.binDir(t), upstream: up.URL(), runtimeDir: t.TempDir()})
	addr := strings.TrimPrefix(r.URL, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"model":"m","input":[`
	req := "POST /v1/responses HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n" + body
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Error struct{ Message, Type, Code string } `json:"error"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(raw, &e) != nil ||
		e.Error.Code != "request_body_short" || e.Error.Type != "invalid_request_error" ||
		!strings.HasPrefix(e.Error.Message, "hpatch-router: ") {
		t.Fatalf("got %d %s, want 400 request_body_short in the OpenAI error shape", resp.StatusCode, raw)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests, want none", n)
	}
}

// TestE2ECallDoneTwice (issue 33 case 9): an upstream sends
// output_item.done twice for one shell call, the second time with another
// input. Codex receives one carrier and runs the call once, with the
// first input; the next request carries one call (the model's first item,
// restored) and one output. Before, two carriers reached Codex.
func TestE2ECallDoneTwice(t *testing.T) {
	t.Parallel()
	const callID = "call_twice_1"
	item := func(input, status string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"type": "custom_tool_call", "id": "ctc_twice_1", "call_id": callID,
			"name": "shell", "namespace": "functions", "input": input, "status": status})
		return b
	}
	event := func(typ string, it json.RawMessage) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"type": typ, "output_index": 0, "item": it})
		return b
	}
	first, second := item("#!python3\nprint('first', 'input')\n", "completed"), item("#!python3\nprint('second', 'input')\n", "completed")
	completed, _ := json.Marshal(map[string]any{"type": "response.completed", "response": map[string]any{
		"id": "resp_twice", "object": "response", "status": "completed", "output": []json.RawMessage{first},
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
	created := json.RawMessage(`{"type":"response.created","response":{"id":"resp_twice","object":"response","status":"in_progress","output":[]}}`)
	c := e2eCase{
		Scenario: routertest.Scenario{Steps: []routertest.Step{
			{Events: []json.RawMessage{created,
				event("response.output_item.added", item("", "in_progress")), event("response.output_item.done", first),
				event("response.output_item.added", item("", "in_progress")), event("response.output_item.done", second),
				completed}},
			{Message: "done"},
		}},
		Prompt:   "one call sent twice",
		Requires: []string{"python3"},
	}
	res := runCase(t, c)
	posts := res.Upstream.Posts()
	if res.Codex.ExitCode != 0 || len(posts) != 2 {
		t.Fatalf("codex exit %d, %d posts; want 0 and 2", res.Codex.ExitCode, len(posts))
	}
	calls, outs := posts[1].FindItems("custom_tool_call", callID), posts[1].FindItems("custom_tool_call_output", callID)
	if len(calls) != 1 || len(outs) != 1 {
		t.Fatalf("the next request carries %d calls and %d outputs of %s, want one of each (Codex ran it %d times)", len(calls), len(outs), callID, len(outs))
	}
	if calls[0].Raw != string(first) {
		t.Errorf("the call reached the model as\n%s\nwant the first item\n%s", calls[0].Raw, first)
	}
	checkCallOutput(t, posts, callExpect{CallID: callID, Output: []string{"first input", `"exit_code":0`}, NotOutput: []string{"second input"}})
	if !strings.Contains(res.Router.Output.String(), "the first one stands") {
		t.Errorf("the router did not log the repeat with another input:\n%s", res.Router.Output.String())
	}
}
