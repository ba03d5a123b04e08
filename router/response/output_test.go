package response_test

import (
	"strings"
	"testing"

	"hpatch-router/router/request"
)

// RewriteOutput puts each in-scope call's carrier in the place of the
// call in a whole JSON response, splicing its bytes in so the rest of the
// document (order, spacing, other items) stays as the upstream wrote it;
// a second copy of a withheld call is dropped.
func TestRewriteOutput(t *testing.T) {
	msg := `{"type":"message","id":"msg_1","content":[{"type":"output_text","text":"<b>&</b>"}]}`
	fn := `{"type":"function_call","call_id":"c0","name":"shell","arguments":"{}"}`
	shell := item("ctc_1", "call_1", "functions", "shell", "ls\n", "completed")
	flatShell := item("ctc_1", "call_1", "", "shell", "ls\n", "completed")
	patch := item("ctc_2", "call_2", "functions", "hpatch", "@shell/call_1\n", "completed")
	doc := func(path string, items ...string) string {
		out := "[\n    " + strings.Join(items, ",\n    ") + "\n  ]"
		if path == "response.output" {
			return `{"type":"response.completed", "response": {"id":"resp_1",  "output": ` + out + `}}`
		}
		return "{\n  \"id\": \"resp_1\",\n  \"output\": " + out + ",\n  \"usage\": {\"total_tokens\": 9}\n}"
	}
	shellCarrier := item("ctc_1", "call_1", "functions", "exec", "run(direct|ls\n|false|)", "completed")
	patchCarrier := `{"type":"custom_tool_call","id":"ctc_2","status":"completed","call_id":"call_2","namespace":"functions","name":"exec",` +
		`"input":"text(\"@shell/call_0 1:ab12 edited\\n\\u003cnew\\u003e \\u0026 \\\"quoted\\\"\");"}`
	cases := []struct {
		name    string
		facts   request.Info
		path    string
		in      string
		want    string // "" when unchanged
		carrier int    // carriers counted
	}{
		{name: "shell and hpatch calls among other items", facts: owned, path: "output",
			in:   doc("output", msg, shell, fn, patch),
			want: doc("output", msg, shellCarrier, fn, patchCarrier), carrier: 2},
		{name: "a call listed twice keeps its first place", facts: owned, path: "output",
			in:   doc("output", shell, msg, shell),
			want: "{\n  \"id\": \"resp_1\",\n  \"output\": [\n    " + shellCarrier + ",\n    " + msg + "\n  ],\n  \"usage\": {\"total_tokens\": 9}\n}", carrier: 1},
		{name: "output of a completed event", facts: owned, path: "response.output",
			in: doc("response.output", fn, shell), want: doc("response.output", fn, shellCarrier), carrier: 1},
		{name: "flat owner: the carrier has no namespace", facts: request.Info{Owned: true}, path: "output",
			in: doc("output", flatShell), want: doc("output", item("ctc_1", "call_1", "", "exec", "run(direct|ls\n|false|)", "completed")), carrier: 1},
		{name: "flat owner: a functions shell loses its namespace", facts: request.Info{Owned: true}, path: "output",
			in: doc("output", shell), want: doc("output", `{"type":"custom_tool_call","id":"ctc_1","status":"completed","call_id":"call_1","name":"exec","input":"run(direct|ls\n|false|)"}`), carrier: 1},
		{name: "nothing in scope", facts: owned, path: "output", in: doc("output", msg, fn)},
		{name: "unowned request", facts: request.Info{Namespace: "functions"}, path: "output", in: doc("output", shell)},
		{name: "no output array", facts: owned, path: "output", in: `{"id":"resp_1","output":{"shell":1}}`},
		{name: "not JSON", facts: owned, path: "output", in: `event: x`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			got, changed := r.session(c.facts).RewriteOutput([]byte(c.in), c.path)
			want := c.want
			if want == "" {
				want = c.in
			}
			if string(got) != want || changed != (c.want != "") {
				t.Fatalf("RewriteOutput changed %v\n%s\nwant\n%s", changed, got, want)
			}
			if n := r.j.count("metric carrier"); n != c.carrier {
				t.Fatalf("%d carriers counted, want %d (%q)", n, c.carrier, r.j.calls)
			}
		})
	}
}

// The carriers of a stream's item done events are the ones its
// response.completed lists, even when asked by RewriteOutput directly:
// one session translates a call once.
func TestRewriteOutputReusesTheSessionsCarrier(t *testing.T) {
	r := newRig(t)
	s := r.session(owned)
	shell := item("ctc_1", "call_1", "functions", "shell", "ls\n", "completed")
	first, _ := s.RewriteOutput([]byte(`{"output":[`+shell+`]}`), "output")
	second, _ := s.RewriteOutput([]byte(`{"response":{"output":[`+shell+`]}}`), "response.output")
	if `{"response":`+string(first)+`}` != string(second) || r.j.count("translate") != 1 || r.j.count("metric carrier") != 1 {
		t.Fatalf("first %s, second %s, deps asked %q", first, second, r.j.calls)
	}
}
