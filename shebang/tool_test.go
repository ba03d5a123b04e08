package shebang_test

import (
	"strings"
	"testing"

	"hpatch-router/shebang"
)

func TestCheckRun(t *testing.T) {
	tests := []struct {
		run     []string
		want    string // the fields joined by |, or the error's substring
		wantErr bool
	}{
		{[]string{"psql", "-X", "-f"}, "psql|-X|-f", false},
		{[]string{"/usr/bin/env", "-S", "python3", "-u"}, "python3|-u", false},
		{[]string{"/bin/BASH"}, "bash", false},
		{[]string{"-x", "python3"}, "starts with the option", true},
		{[]string{"env"}, "names no executable", true},
		{[]string{"env", "A=1", "x"}, "not supported", true},
		{[]string{}, "empty shebang selector", true},
		{[]string{"jq", ""}, "run[1] is empty", true},
		{[]string{"jq", "a\x01"}, "control character", true},
	}
	for _, tc := range tests {
		got, err := shebang.CheckRun(tc.run)
		switch {
		case tc.wantErr && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckRun(%q) = %v, want an error with %q", tc.run, err, tc.want)
		case !tc.wantErr && (err != nil || strings.Join(got, "|") != tc.want):
			t.Errorf("CheckRun(%q) = %q, %v, want %q", tc.run, got, err, tc.want)
		case err != nil && !strings.HasPrefix(err.Error(), "run"):
			t.Errorf("CheckRun(%q) error %q does not name run", tc.run, err)
		}
	}
}

func TestCheckTemplateAndParams(t *testing.T) {
	if err := shebang.CheckTemplate("timeout 9 {.}"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"no placeholder", "{.} {.}"} {
		if err := shebang.CheckTemplate(bad); err == nil || !strings.HasPrefix(err.Error(), "cmd: ") {
			t.Errorf("CheckTemplate(%q) = %v", bad, err)
		}
	}
	if err := shebang.CheckParams(`{"max_output_tokens":20000,"login":false}`); err != nil {
		t.Error(err)
	}
	for bad, want := range map[string]string{
		`{"cmd":"x"}`:      "must not contain cmd",
		`{"login":true}`:   "login must be false",
		`[1]`:              "must be a JSON object",
		`{"shell":"fish"}`: "not a POSIX shell",
		`{"a":1,"a":2}`:    "repeats the key",
		`{"a":1} {"b":2}`:  "text after",
	} {
		if err := shebang.CheckParams(bad); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "params") {
			t.Errorf("CheckParams(%s) = %v, want %q", bad, err, want)
		}
	}
}

func TestTranslateTool(t *testing.T) {
	shape := []shebang.Param{{Name: "shell"}, {Name: "max_output_tokens"}}
	input := "select 1;  \n\tselect 2; " // trailing blanks, no final newline
	tests := []struct {
		name string
		spec shebang.ToolSpec
		kind shebang.Kind
		argv []string
		args string // substring of Args
	}{
		{"script", shebang.ToolSpec{Run: []string{"psql", "-f"}}, shebang.KindWorker,
			[]string{"psql", "-f", input}, `,"login":false}`},
		{"stdin", shebang.ToolSpec{Run: []string{"jq", "."}, Stdin: true}, shebang.KindWorker,
			[]string{shebang.StdinMarker, "jq", ".", input}, `"login":false`},
		{"template and params", shebang.ToolSpec{Run: []string{"psql"}, Cmd: "timeout 5 {.}", Params: `{"max_output_tokens":9}`},
			shebang.KindTemplate, []string{"psql", input}, `,"max_output_tokens":9,"shell":"bash","login":false}`},
	}
	for _, tc := range tests {
		p, err := shebang.TranslateTool(tc.spec, input, shebang.Options{Params: shape})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p.Kind != tc.kind || strings.Join(p.Argv, "\x00") != strings.Join(tc.argv, "\x00") || !strings.Contains(string(p.Args), tc.args) {
			t.Errorf("%s: kind %s argv %q args %s", tc.name, p.Kind, p.Argv, p.Args)
		}
		if p.Retainable || len(p.Warnings) != 0 || p.Body != input {
			t.Errorf("%s: retainable %v warnings %q body %q", tc.name, p.Retainable, p.Warnings, p.Body)
		}
	}
	// A16 warnings are off: an inline program is what a tool's input is.
	if p, err := shebang.TranslateTool(shebang.ToolSpec{Run: []string{"bash"}}, "python3 -c 'print(1)'", shebang.Options{}); err != nil || len(p.Warnings) != 0 {
		t.Errorf("warnings %v, %v", p, err)
	}
}

func TestTranslateToolRejects(t *testing.T) {
	tests := []struct {
		name  string
		spec  shebang.ToolSpec
		input string
		want  string
	}{
		{"limit", shebang.ToolSpec{Run: []string{"jq"}, MaxInputBytes: 4}, "12345", "over this tool's limit of 4"},
		{"nul", shebang.ToolSpec{Run: []string{"jq"}}, "a\x00", "NUL byte"},
		{"utf8", shebang.ToolSpec{Run: []string{"jq"}}, "a\xff", "not valid UTF-8"},
		{"argv", shebang.ToolSpec{Run: []string{"jq"}}, strings.Repeat("x", shebang.MaxArgBytes+1), "argv limit"},
		{"param type", shebang.ToolSpec{Run: []string{"jq"}, Params: `{"yield_time_ms":"soon"}`}, "x", "must be"},
	}
	shape := []shebang.Param{{Name: "yield_time_ms", Type: shebang.ParseParamType("number")}}
	for _, tc := range tests {
		_, err := shebang.TranslateTool(tc.spec, tc.input, shebang.Options{Params: shape})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	c := shebang.ToolRejectionCarrier("sql", &shebang.Diagnostic{Msg: "no"})
	if !strings.Contains(c, `"sql: no`) {
		t.Errorf("rejection carrier %s", c)
	}
}

// A tool's params reach the carrier as #!params do: an output budget gives
// the // @exec: pragma (ExecPragma).
func TestTranslateToolPragma(t *testing.T) {
	p, err := shebang.TranslateTool(shebang.ToolSpec{Run: []string{"python3"}, Params: `{"max_output_tokens":20000}`}, "print(1)", shebang.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Carrier(shebang.Retention{}); !strings.HasPrefix(c, `// @exec: {"max_output_tokens": 41000}`+"\n") {
		t.Errorf("carrier %q", c)
	}
}
