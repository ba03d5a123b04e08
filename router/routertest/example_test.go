package routertest_test

import (
	"fmt"
	"net/http"
	"strings"

	"hpatch-router/router/routertest"
)

// A fake model that answers the first request with a `shell` call and the
// second with a message; the call_id of the second step is copied from the
// request with SubstJSON.
func Example() {
	up, err := routertest.New(routertest.Scenario{Steps: []routertest.Step{
		{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions",
			CallID: "call_1", Input: "#!python3\nprint(42)\n"}, Deltas: 2},
		{Message: "saw output of {{call}}",
			SubstJSON: map[string]string{"call": `input.#(type=="custom_tool_call_output").call_id`}},
	}})
	if err != nil {
		panic(err)
	}
	up.Start()
	defer up.Close()

	for _, body := range []string{`{"input":[]}`, `{"input":[{"type":"custom_tool_call_output","call_id":"call_1","output":"42"}]}`} {
		resp, err := http.Post(up.URL()+"/responses", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		events, _ := routertest.ParseSSE(resp.Body)
		resp.Body.Close()
		last := events[len(events)-1]
		fmt.Println(len(events), "events, last", last.Type(), "seq", last.Seq())
	}
	for _, r := range up.Posts() {
		fmt.Printf("request %d %s: emitted %s\n", r.Index, r.Path, r.EmittedItems()[0])
	}
	// Output:
	// 7 events, last response.completed seq 6
	// 8 events, last response.completed seq 7
	// request 0 /v1/responses: emitted {"type":"custom_tool_call","id":"ctc_resp_1_0","call_id":"call_1","name":"shell","namespace":"functions","input":"#!python3\nprint(42)\n","status":"completed"}
	// request 1 /v1/responses: emitted {"type":"message","id":"msg_resp_2_0","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"text":"saw output of call_1"}]}
}
