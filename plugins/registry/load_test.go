package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeDir makes a tools directory holding files (name → content).
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tools")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func problemLines(probs []Problem) string {
	var b strings.Builder
	for _, p := range probs {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// The case: a file with two problems reports both, each with its
// line, as FILE:LINE: what; how to fix.
func TestLoadReportsEveryProblemWithItsLine(t *testing.T) {
	dir := writeDir(t, map[string]string{"a.toml": `[[tool]]
name = "sql"
description = "Run SQL."
run = ["-X", "psql"]
cmd = "psql"
`})
	set, probs := Load(dir, LoadOptions{})
	file := filepath.Join(dir, "a.toml")
	want := file + ":4: run: shebang selector starts with the option \"-X\"; name the interpreter first\n" +
		file + ":5: cmd: template has no {.} placeholder; put {.} where the script's command goes, e.g. #!cmd=curl -fsSL URL | {.}\n"
	if set != nil || problemLines(probs) != want {
		t.Fatalf("got set %v, problems\n%s\nwant\n%s", set, problemLines(probs), want)
	}
}

func TestLoadProblems(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // "FILE:LINE: substring"
	}{
		{"unknown keys", map[string]string{"a.toml": "top = 1\n[[tool]]\nname = \"x\"\ndescription = \"d\"\nrun = [\"jq\"]\nrunn = 1\n"},
			[]string{"a.toml:1: unknown key \"top\"", "a.toml:6: unknown key \"runn\""}},
		{"missing keys", map[string]string{"a.toml": "[[tool]]\nname = \"x\"\n"},
			[]string{"a.toml:1: the tool has no description", "a.toml:1: the tool has no run"}},
		{"names", map[string]string{"a.toml": "[[tool]]\nname = \"shell\"\ndescription = \"d\"\nrun = [\"jq\"]\n[[tool]]\nname = \"9x\"\ndescription = \"d\"\nrun = [\"jq\"]\n"},
			[]string{"a.toml:2: name \"shell\" is reserved", "a.toml:6: name \"9x\" is not a tool name"}},
		{"duplicate across files", map[string]string{
			"a.toml": "[[tool]]\nname = \"x\"\ndescription = \"d\"\nrun = [\"jq\"]\n",
			"b.toml": "\n[[tool]]\nname = \"x\"\ndescription = \"d\"\nrun = [\"jq\"]\n"},
			[]string{"b.toml:2: tool name \"x\" is already declared at "}},
		{"values", map[string]string{"a.toml": "[[tool]]\nname = \"x\"\ndescription = \"\"\nrun = [\"jq\"]\ninput = \"file\"\nmax_input_bytes = 200000\nparams = { cmd = \"x\" }\n"},
			[]string{"a.toml:3: description is empty", "a.toml:5: input \"file\"", "a.toml:6: max_input_bytes 200000 is outside", "a.toml:7: params: must not contain cmd"}},
		{"sub-table params", map[string]string{"a.toml": "[[tool]]\nname = \"x\"\ndescription = \"d\"\nrun = [\"jq\"]\n[tool.params]\nlogin = true\n"},
			[]string{"a.toml:5: params: login must be false"}},
		{"syntax", map[string]string{"a.toml": "[[tool]]\nname = \"x\"\nname = \"y\"\n"},
			[]string{"a.toml:3: "}},
		{"inline grammar", map[string]string{"a.toml": "[[tool]]\nname = \"x\"\ndescription = \"d\"\nrun = [\"jq\"]\nformat = { type = \"grammar\", syntax = \"lark\", definition = \"start: a\" }\n"},
			[]string{"a.toml:5: definition line 1: rule a is used but never defined"}},
		{"grammar file", map[string]string{"a.toml": "[[tool]]\nname = \"x\"\ndescription = \"d\"\nrun = [\"jq\"]\n[tool.format]\ntype = \"grammar\"\nsyntax = \"lark\"\ndefinition_file = \"x.lark\"\n",
			"x.lark": "start: A\nA: /a(?<=b)/\n"},
			[]string{"x.lark:2: regex /a(?<=b)/ uses a lookbehind"}},
		{"grammar file outside", map[string]string{"a.toml": "[[tool]]\nname = \"x\"\ndescription = \"d\"\nrun = [\"jq\"]\nformat = { type = \"grammar\", syntax = \"regex\", definition_file = \"../x\" }\n"},
			[]string{"a.toml:5: definition_file \"../x\" must name a file next to the tool file"}},
		{"regex", map[string]string{"a.toml": "[[tool]]\nname = \"x\"\ndescription = \"d\"\nrun = [\"jq\"]\nformat = { type = \"grammar\", syntax = \"regex\", definition = \"(a\" }\n"},
			[]string{"a.toml:5: the regex does not compile"}},
	}
	for _, tc := range tests {
		dir := writeDir(t, tc.files)
		set, probs := Load(dir, LoadOptions{})
		got := problemLines(probs)
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if set != nil || len(lines) != len(tc.want) {
			t.Errorf("%s: got\n%s", tc.name, got)
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(lines[i], filepath.Join(dir, w[:strings.Index(w, ": ")])) || !strings.Contains(lines[i], w[strings.Index(w, ": ")+2:]) {
				t.Errorf("%s: line %d = %s, want %s", tc.name, i, lines[i], w)
			}
		}
	}
}

// The shipped examples load, and render deterministically.
func TestExamples(t *testing.T) {
	set, probs := Load("../examples", LoadOptions{})
	if len(probs) > 0 {
		t.Fatal(problemLines(probs))
	}
	var names []string
	for _, tl := range set.Tools {
		names = append(names, tl.Name+":"+tl.Input+":"+tl.Format.Summary())
	}
	if got := strings.Join(names, " "); got != "gotest:stdin:lark grammar (82 bytes) py:script:text sql:stdin:text" {
		t.Errorf("examples: %s", got)
	}
	again, _ := Load("../examples", LoadOptions{})
	for i, tl := range set.Tools {
		if string(tl.JSON) != string(again.Tools[i].JSON) {
			t.Errorf("%s renders differently on a second load", tl.Name)
		}
	}
	py := set.Lookup("py")
	if want := `{"type":"custom","name":"py","description":"Run a Python 3 program (python3 -I: isolated mode). Input: the program itself, exactly as a .py file would hold it; sys.argv[0] is its /dev/fd path.","format":{"type":"text"}}`; string(py.JSON) != want {
		t.Errorf("py renders as %s", py.JSON)
	}
	if py.Spec.Params != `{"max_output_tokens":20000}` || py.Spec.Stdin {
		t.Errorf("py spec %+v", py.Spec)
	}
}

func TestLoadMissingDirIsEmpty(t *testing.T) {
	set, probs := Load(filepath.Join(t.TempDir(), "none"), LoadOptions{})
	if len(probs) > 0 || set.Len() != 0 {
		t.Fatalf("%v %v", set, probs)
	}
}

// The ownership rule is applied to the directory, each tool file and each
// grammar file, without following links.
func TestLoadAppliesOwnership(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"a.toml": "[[tool]]\nname = \"x\"\ndescription = \"d\"\nrun = [\"jq\"]\nformat = { type = \"grammar\", syntax = \"lark\", definition_file = \"x.lark\" }\n",
		"x.lark": "start: \"a\"\n",
	})
	var seen []string
	owned := func(what, path, kind string) error {
		seen = append(seen, what+" "+filepath.Base(path)+" "+kind)
		if filepath.Base(path) == "x.lark" {
			return os.ErrPermission
		}
		return nil
	}
	set, probs := Load(dir, LoadOptions{Owned: owned})
	if set != nil || len(probs) != 1 || !strings.Contains(probs[0].String(), "a.toml:5: permission denied") {
		t.Errorf("problems %v", problemLines(probs))
	}
	if got := strings.Join(seen, ","); got != "tools directory tools directory,tool file a.toml file,grammar file x.lark file" {
		t.Errorf("checked %s", got)
	}
}

func TestValidName(t *testing.T) {
	long := strings.Repeat("a", 64)
	for name, want := range map[string]bool{
		"sql": true, "_x": true, "go-test_2": true, "A": true, long: true,
		"": false, "9x": false, "-x": false, "a b": false, "a.b": false,
		"é": false, long + "a": false, "a/b": false,
	} {
		if got := validName(name); got != want {
			t.Errorf("validName(%q) = %v, want %v", name, got, want)
		}
	}
}
