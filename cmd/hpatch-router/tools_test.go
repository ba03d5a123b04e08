//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func toolsEnv(t *testing.T, config string) serveEnv {
	return serveEnv{
		getenv:  func(k string) string { return map[string]string{"XDG_CONFIG_HOME": config}[k] },
		homeDir: func() (string, error) { return t.TempDir(), nil },
		uid:     os.Getuid(),
	}
}

// tools check reports every problem of a file with two problems, each
// with its line, and exits 1; tools lists the tools in service.
func TestToolsCheckAndList(t *testing.T) {
	config := t.TempDir()
	dir := filepath.Join(config, "hpatch-router", "tools")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.toml")
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("bad.toml", "[[tool]]\nname = \"exec\"\ndescription = \"d\"\nrun = [\"jq\"]\nmax_input_bytes = 0\n")
	var out, errb bytes.Buffer
	code := toolsCommand([]string{"check"}, toolsEnv(t, config), stdio{nil, &out, &errb})
	want := bad + ":2: name \"exec\" is reserved (shell, hpatch, exec, apply_patch); choose another\n" +
		bad + ":5: max_input_bytes 0 is outside 1…131071 (the argv limit); choose a value in it or remove the key\n"
	if code != 1 || out.String() != want {
		t.Fatalf("check: code %d, stdout\n%s\nwant\n%s", code, out.String(), want)
	}
	write("bad.toml", "[[tool]]\nname = \"jqx\"\ndescription = \"jq on stdin\"\nrun = [\"jq\", \".\"]\ninput = \"stdin\"\n")
	out.Reset()
	if code := toolsCommand([]string{"check", bad}, toolsEnv(t, config), stdio{nil, &out, &errb}); code != 0 || !strings.Contains(out.String(), "1 tool(s), no problems") {
		t.Fatalf("check file: %d %s", code, out.String())
	}
	out.Reset()
	if code := toolsCommand(nil, toolsEnv(t, config), stdio{nil, &out, &errb}); code != 0 {
		t.Fatalf("list: %d %s", code, errb.String())
	}
	for _, w := range []string{"shell ", "hpatch ", "jqx ", bad + ":1", "stdin", "jq .", "text"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("list lacks %q:\n%s", w, out.String())
		}
	}
}

// translate --tool previews a declared tool's carrier; the input is never
// read for a shebang.
func TestTranslateTool(t *testing.T) {
	var out, errb bytes.Buffer
	code := runTranslate(nil, []string{"--tool", "py", "--tools-dir", "../../plugins/examples"}, stdio{strings.NewReader("#!bash\nprint(1)  "), &out, &errb})
	if code != 0 || !strings.Contains(out.String(), `"argv":["python3","-I","#!bash\nprint(1)  "]`) || !strings.Contains(out.String(), `"max_output_tokens":20000`) {
		t.Fatalf("code %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	code = runTranslate(nil, []string{"--tool", "sql", "--tools-dir", "../../plugins/examples"}, stdio{strings.NewReader(strings.Repeat("x", 70000)), &out, &errb})
	if code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), "sql: line") && !strings.Contains(errb.String(), "sql: the input is 70000 bytes") {
		t.Fatalf("over the limit: code %d %s", code, errb.String())
	}
}

// doctor reports what the tools directory offers, or its problems.
func TestDoctorToolFiles(t *testing.T) {
	config := t.TempDir()
	env := doctorEnv{getenv: func(k string) string { return map[string]string{"XDG_CONFIG_HOME": config}[k] }, homeDir: os.UserHomeDir, uid: os.Getuid()}
	if c := checkToolFiles(env); !c.OK || !strings.Contains(c.Detail, "0 tool(s)") {
		t.Errorf("no directory: %+v", c)
	}
	dir := filepath.Join(config, "hpatch-router", "tools")
	must(t, os.MkdirAll(dir, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "a.toml"), []byte("[[tool]]\nname = \"x\"\n"), 0o600))
	c := checkToolFiles(env)
	if c.OK || c.Required || !strings.Contains(c.Detail, filepath.Join(dir, "a.toml")+":1: the tool has no description") || c.Fix == "" {
		t.Errorf("broken file: %+v", c)
	}
}
