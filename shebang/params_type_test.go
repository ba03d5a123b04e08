package shebang

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexTypes is the #!params types table every Codex version in the e2e
// matrix (0.144.0–0.171.0) declares for exec_command, as Expect says it.
var codexTypes = map[string]string{
	"justification":       "a string",
	"login":               "a boolean",
	"max_output_tokens":   "a whole number of 0 or more",
	"prefix_rule":         "an array of strings",
	"sandbox_permissions": `one of "use_default", "require_escalated"`,
	"shell":               "a string",
	"tty":                 "a boolean",
	"workdir":             "a string",
	"yield_time_ms":       "a whole number of 0 or more",
}

// TestParamsShapeTypesAcrossCodexVersions reads the exec_command
// declaration each Codex version sent (the request captures of 0.144.0,
// 0.147.0 and 0.169.0; the declarations cut from captures of 0.156.0,
// 0.169.1 and 0.171.0) and checks every argument's recorded type.
func TestParamsShapeTypesAcrossCodexVersions(t *testing.T) {
	root := filepath.Join("..", "testdata", "codex")
	sources := map[string]string{}
	for _, c := range []string{"flat-0.144.0-cli", "namespaced-0.147.0-cli", "cli-bundled-sol"} {
		data, err := os.ReadFile(filepath.Join(root, "captures", c, "000-post.json"))
		if err != nil {
			t.Fatal(err)
		}
		desc := execDescription(t, data)
		sources[c] = desc[strings.Index(desc, "exec_command(args"):] // the section the router cuts out
	}
	for _, v := range []string{"0.156.0", "0.169.1", "0.171.0"} {
		data, err := os.ReadFile(filepath.Join(root, "exec_command", v+".d.ts"))
		if err != nil {
			t.Fatal(err)
		}
		sources[v] = string(data)
	}
	for name, text := range sources {
		t.Run(name, func(t *testing.T) {
			shape := ParseParamsShape(text)
			if len(shape.Params) != len(codexTypes) {
				t.Fatalf("%d params %q, want the %d of the table", len(shape.Params), shape.Names(), len(codexTypes))
			}
			for _, p := range shape.Params {
				want, ok := codexTypes[p.Name]
				if got := p.Type.Expect(); !ok || got != want {
					t.Errorf("%s: type %q, want %q", p.Name, got, want)
				}
			}
		})
	}
}

// execDescription finds the one string of a captured request body that
// holds the exec_command declaration.
func execDescription(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	var found string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			if strings.Contains(v, "exec_command(args") {
				found = v
			}
		}
	}
	walk(v)
	if found == "" {
		t.Fatal("no exec_command declaration in the capture")
	}
	return found
}

// TestParamType: what a declared type admits and how a diagnostic names it.
func TestParamType(t *testing.T) {
	tests := []struct {
		decl   string
		expect string // "" for a type the router cannot read
		admits []string
		denies []string
	}{
		{"boolean", "a boolean", []string{"true", "false"}, []string{`"yes"`, `"true"`, "1", "null", "[]", "{}"}},
		{"number", "a whole number of 0 or more", []string{"0", "30000", "1e3", "1000.0", "-0", "9007199254740991"},
			[]string{"-1", "1.5", "1500.5", "9007199254740992", "1e300", `"10"`, "true", "null", "[1]"}},
		{"string", "a string", []string{`""`, `"/tmp"`}, []string{"1", "true", "null", `["a"]`, `{"a":1}`}},
		{"Array<string>", "an array of strings", []string{"[]", `["git","pull"]`}, []string{`"git"`, `["git",1]`, `[["a"]]`, "null"}},
		{"string[]", "an array of strings", []string{`["a"]`}, []string{"[true]"}},
		{"Array<Array<number>>", "an array of arrays of whole numbers of 0 or more", []string{"[[1],[]]"}, []string{"[1]", "[[0.5]]"}},
		{"Array<Foo>", "an array", []string{`[1,"a",{}]`}, []string{"{}"}},
		{`"use_default" | "require_escalated"`, `one of "use_default", "require_escalated"`, []string{`"use_default"`, `"require_escalated"`}, []string{`"USE_DEFAULT"`, `"other"`, "true"}},
		{`'a' | "b"`, `one of "a", "b"`, []string{`"a"`, `"b"`}, []string{`"c"`}},
		{`"only"`, `the string "only"`, []string{`"only"`}, []string{`"x"`}},
		{"string | null", "a string or null", []string{`"x"`, "null"}, []string{"1"}},
		{"number | undefined", "a whole number of 0 or more", []string{"3"}, []string{"null"}},
		{"(string | number)", "a string or a whole number of 0 or more", []string{`"x"`, "2"}, []string{"true"}},
		{"Record<string, string>", "an object", []string{`{"A":"b"}`}, []string{"[]"}},
		{"{ a: string; b?: number }", "an object", []string{"{}"}, []string{`"x"`}},
		{"true", "a boolean", []string{"false"}, []string{"0"}},
		{"42", "a whole number of 0 or more", []string{"7"}, []string{`"42"`}},
		{"Foo", "", []string{`"x"`, "1", "null"}, nil},
		{"any", "", []string{"{}"}, nil},
		{"string | Foo", "", []string{"1"}, nil},
		{"(x: number) => void", "", []string{"1"}, nil},
		{"", "", []string{"1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.decl, func(t *testing.T) {
			ty := ParseParamType(tt.decl)
			if got := ty.Expect(); got != tt.expect || ty.Known() != (tt.expect != "") {
				t.Fatalf("Expect() = %q (known %v), want %q", got, ty.Known(), tt.expect)
			}
			for _, v := range tt.admits {
				if !ty.Admits([]byte(v)) {
					t.Errorf("%s must admit %s", tt.decl, v)
				}
			}
			for _, v := range tt.denies {
				if ty.Admits([]byte(v)) {
					t.Errorf("%s must not admit %s", tt.decl, v)
				}
			}
		})
	}
}

// TestParamsShapeFieldTypes: the type text of each field form the
// declaration parser reads, and of bulleted parameters.
func TestParamsShapeFieldTypes(t *testing.T) {
	tests := []struct {
		section string
		want    string // name=Expect, comma-separated
	}{
		{"exec_command(args: {\n  cmd: string;\n  tty?: boolean; // pty\n  \"workdir\"?: string;\n  mode?: \"a;b\" | \"c,d\";\n  env?: Record<string, string>,\n  cb?: (x: number) => void;\n}): X",
			`tty=a boolean,workdir=a string,mode=one of "a;b", "c,d",env=an object,cb=`},
		{"exec_command(args: { cmd: string; n?: number /* ms */; list: Array<{\n a: string; }> }): X",
			"n=a whole number of 0 or more,list=an array of objects"},
		{"Parameters:\n- `cmd` (string): the command\n- `workdir` (string, optional): dir\n- `tty` (bool): pty\n- `yield_time_ms` (integer, optional): ms\n- `env` (map): vars\n- timeout?: seconds\n",
			"workdir=a string,tty=a boolean,yield_time_ms=a whole number of 0 or more,env=,timeout="},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range ParseParamsShape(tt.section).Params {
			got = append(got, p.Name+"="+p.Type.Expect())
		}
		if g := strings.Join(got, ","); g != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.section, g, tt.want)
		}
	}
}

// TestParamsWrongType: a #!params value its declared type does not admit
// rejects before anything runs, with one line naming the #!params line,
// the key and the expected type; an admitted one translates.
func TestParamsWrongType(t *testing.T) {
	shape := ParseParamsShape(mustRead(t, filepath.Join("..", "testdata", "codex", "exec_command", "0.171.0.d.ts"))).Params
	tests := []struct {
		in   string
		want string // the whole diagnostic; "" translates
	}{
		{"#!python3\n#!params={\"tty\":\"yes\"}\nprint(1)\n", `line 2: #!params key "tty" must be a boolean, as exec_command declares it, not the string "yes"`},
		{"#!params={\"workdir\":\"/tmp\",\"yield_time_ms\":\"5000\"}\nls\n", `line 1: #!params key "yield_time_ms" must be a whole number of 0 or more, as exec_command declares it, not the string "5000"`},
		{"#!params={\"yield_time_ms\":1500.5}\nls\n", `line 1: #!params key "yield_time_ms" must be a whole number of 0 or more, as exec_command declares it, not the number 1500.5`},
		{"#!params={\"max_output_tokens\":-5}\nls\n", `line 1: #!params key "max_output_tokens" must be a whole number of 0 or more, as exec_command declares it, not the number -5`},
		{"#!bash\n#!params={\"workdir\":7}\necho hi\n", `line 2: #!params key "workdir" must be a string, as exec_command declares it, not the number 7`},
		{"#!params={\"prefix_rule\":[\"git\",1]}\nls\n", `line 1: #!params key "prefix_rule" must be an array of strings, as exec_command declares it, not an array`},
		{"#!params={\"sandbox_permissions\":\"escalated\"}\nls\n", `line 1: #!params key "sandbox_permissions" must be one of "use_default", "require_escalated", as exec_command declares it, not the string "escalated"`},
		{"#!params={\"tty\":null}\nls\n", `line 1: #!params key "tty" must be a boolean, as exec_command declares it, not null`},
		{"#!params={\"shell\":[\"bash\"]}\nls\n", `line 1: #!params key "shell" must be a string, as exec_command declares it, not an array`},
		{"#!params={\"justification\":{\"why\":\"x\"}}\nls\n", `line 1: #!params key "justification" must be a string, as exec_command declares it, not an object`},
		{"#!params={\"workdir\":\"" + strings.Repeat("d", 60) + "\",\"tty\":\"" + strings.Repeat("y", 60) + "\"}\nls\n", `line 1: #!params key "tty" must be a boolean, as exec_command declares it, not a string`},
		{"#!python3\n#!params={\"tty\":true,\"max_output_tokens\":1e3,\"yield_time_ms\":2000,\"prefix_rule\":[\"ls\"],\"sandbox_permissions\":\"use_default\",\"workdir\":\"/tmp\"}\nprint(1)\n", ""},
	}
	for _, tt := range tests {
		_, err := Translate(tt.in, Options{Params: shape})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("%q:\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
	if _, err := Translate("#!params={\"tty\":\"yes\"}\nls\n", Options{Params: untyped("tty")}); err != nil {
		t.Errorf("a type the router could not read admits any value: %v", err)
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// FuzzParseParamType: any type text parses without panicking, a known type
// says what it expects, and Admits answers for any JSON value.
func FuzzParseParamType(f *testing.F) {
	for _, s := range []string{"boolean", `"a" | 'b' | null`, "Array<Array<string>>", "string[] | Record<string, number>", "(x: number) => void", "{ a: string }", `"\u00e9\"" | 1e3`} {
		f.Add(s, `["x",1,true,null,{}]`)
	}
	f.Fuzz(func(t *testing.T, decl, value string) {
		ty := ParseParamType(decl)
		if ty.Known() != (ty.Expect() != "") {
			t.Fatalf("%q: known %v, Expect %q", decl, ty.Known(), ty.Expect())
		}
		if json.Valid([]byte(value)) {
			ty.Admits([]byte(value))
		} else if !ty.Known() && !ty.Admits([]byte(value)) {
			t.Fatalf("unknown type %q refused %q", decl, value)
		}
	})
}
