package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"hpatch-router/plugins"
	"hpatch-router/router/routertest"
)

// recorder collects what the e2e checks report, to test the checks
// themselves without Codex.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

const (
	modelShell = `{"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"shell","namespace":"functions","input":"#!python3\nprint(1)\n","status":"completed"}`
	codexEcho  = `{"type":"custom_tool_call","id":"ctc_1","status":"completed","call_id":"call_1","name":"shell","namespace":"functions","input":"#!python3\nprint(1)\n"}`
	carrier    = `{"type":"custom_tool_call","id":"ctc_1","status":"completed","call_id":"call_1","name":"exec","namespace":"functions","input":"const result = await tools.exec_command({});"}`
	output     = `{"type":"custom_tool_call_output","id":"ctco_1","call_id":"call_1","output":"1"}`
)

func emitted(item string) []json.RawMessage {
	return []json.RawMessage{json.RawMessage(`{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":` + item + `}`)}
}

func TestCheckReplay(t *testing.T) {
	tests := []struct {
		name   string
		follow string // input items of the follow-up request
		want   string // substring of the first reported error; "" = none
	}{
		{"original restored byte-exactly", modelShell + "," + output, ""},
		{"carrier leaked to the model", carrier + "," + output, "exec carrier for call_1 reached the model"},
		{"Codex's re-encoding is not byte-exact", codexEcho + "," + output, "not restored byte-exactly"},
		{"call missing", output, "0 custom_tool_call items"},
		{"output missing", modelShell, "0 custom_tool_call_output items"},
		{"output before call", output + "," + modelShell, "precedes its call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			posts := []routertest.Request{
				{Index: 0, Body: []byte(`{"input":[]}`), Events: emitted(modelShell)},
				{Index: 1, Body: []byte(`{"input":[` + tt.follow + `]}`)},
			}
			var r recorder
			checkReplay(&r, posts)
			switch {
			case tt.want == "" && len(r.errs) > 0:
				t.Errorf("unexpected errors: %q", r.errs)
			case tt.want != "" && (len(r.errs) == 0 || !strings.Contains(r.errs[0], tt.want)):
				t.Errorf("errors %q, want one containing %q", r.errs, tt.want)
			}
		})
	}
}

func TestCheckReplayExecEcho(t *testing.T) {
	model := `{"type":"custom_tool_call","id":"ctc_2","call_id":"call_2","name":"exec","input":"text(1)","status":"completed"}`
	for _, tt := range []struct {
		echo string
		ok   bool
	}{
		{`{"type":"custom_tool_call","id":"ctc_2","status":"completed","call_id":"call_2","name":"exec","input":"text(1)"}`, true},
		{`{"type":"custom_tool_call","id":"ctc_2","status":"completed","call_id":"call_2","name":"exec","input":"text(\"note\");\ntext(1)"}`, false},
	} {
		var r recorder
		checkReplay(&r, []routertest.Request{{Events: emitted(model), Body: []byte(`{}`)}, {Index: 1, Body: []byte(`{"input":[` + tt.echo + `]}`)}})
		if (len(r.errs) == 0) != tt.ok {
			t.Errorf("echo %s: errors %q", tt.echo, r.errs)
		}
	}
}

func TestCheckRewrittenTools(t *testing.T) {
	execTool := func(desc string) string {
		return `{"type":"custom","name":"exec","description":"` + desc + `","format":{"type":"grammar"}}`
	}
	shellTool := `{"type":"custom","name":"shell","description":"Run a program.","format":{"type":"text"}}`
	hpatchTool := `{"type":"custom","name":"hpatch","description":"Edit.","format":{"type":"grammar","syntax":"lark","definition":` +
		jsonString(t, plugins.HpatchGrammar()) + `}}`
	tools := shellTool + "," + hpatchTool
	ns := func(tools ...string) string {
		return `{"type":"namespace","name":"functions","tools":[` + strings.Join(tools, ",") + `]}`
	}
	body := func(items string) []byte {
		return []byte(`{"input":[{"type":"additional_tools","tools":[` + items + `]},{"type":"message"}]}`)
	}
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"shell beside exec in functions", body(ns(execTool("Run JS."), tools)), ""},
		{"flat layout", body(execTool("Run JS.") + "," + tools), ""},
		{"no hpatch", body(ns(execTool("Run JS."), shellTool)), "no hpatch tool beside shell"},
		{"hpatch without its grammar", body(ns(execTool("Run JS."), shellTool, strings.Replace(hpatchTool, `"lark"`, `"regex"`, 1))), "not constrained by its Lark grammar"},
		{"exec_command left in description", body(ns(execTool("use await tools.exec_command(...)"), shellTool)), "still names tools.exec_command"},
		{"no shell", body(ns(execTool("Run JS."))), "no shell tool injected"},
		{"shell elsewhere", body(ns(execTool("Run JS.")) + "," + shellTool), "shell injected in additional_tools"},
		{"shell not free-form", body(ns(execTool("x"), strings.Replace(shellTool, `"text"`, `"grammar"`, 1))), "not a free-form custom tool"},
		{"no exec at all", []byte(`{"input":[]}`), "has no exec tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			checkRewrittenTools(&r, routertest.Request{Body: tt.body})
			switch {
			case tt.want == "" && len(r.errs) > 0:
				t.Errorf("unexpected errors: %q", r.errs)
			case tt.want != "" && (len(r.errs) == 0 || !strings.Contains(r.errs[0], tt.want)):
				t.Errorf("errors %q, want one containing %q", r.errs, tt.want)
			}
		})
	}
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
