// Package routertest is the project's scripted fake model API: an
// httptest-style server that plays a Scenario, one Step per
// POST …/responses, and records every request (method, path, headers and
// body) for assertions.
//
// Steps produce the SSE event stream the real Responses API sends (see
// ../shared/codex/FACTS.md §3.1): response.created, output_item.added,
// custom_tool_call_input.delta…, custom_tool_call_input.done,
// output_item.done and response.completed with the output array, each event
// carrying a per-response sequence_number. Messages also get the
// content_part and output_text events of the real API. A step may instead give raw
// events, extra response headers, an HTTP error status, a stream that ends
// without response.completed, or values copied from the request it answers
// (Subst, SubstJSON, or a Go Func).
//
// GET …/models answers with the scenario's catalog; WebSocket upgrades get
// 404 so Codex falls back to HTTP SSE. A request that asks for
// "stream": false gets the final response object as JSON instead of SSE.
//
// Typical use in a router test:
//
//	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
//		{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions",
//			CallID: "call_1", Input: "#!python3\nprint(1)\n"}, Deltas: 3},
//		{Message: "done"},
//	}})
//	// point the router (or Codex) at up.URL() ("http://127.0.0.1:PORT/v1")
//	reqs := up.Posts()
//
// Scenario files (testdata/scenarios/*.json) decode into Scenario with
// LoadScenario; a bare JSON list of steps (the format of the shared capture
// scripts) is accepted too.
package routertest
