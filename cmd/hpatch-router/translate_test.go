package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func translateCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runTranslate(context.Background(), args, stdio{strings.NewReader(stdin), &out, &errb})
	return code, out.String(), errb.String()
}

// TestTranslateGolden drives the CLI contract the acceptance suite relies
// on with the inputs under testdata/translate.
func TestTranslateGolden(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "translate")
	ins, _ := filepath.Glob(filepath.Join(dir, "*.in"))
	if len(ins) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in")
		t.Run(name, func(t *testing.T) {
			input, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := translateCLI(t, string(input), "--call-id", "call_golden", "--params-shape", filepath.Join(dir, "exec_command.d.ts"))
			golden, got := filepath.Join(dir, name+".json"), stdout
			if strings.HasPrefix(name, "reject-") {
				golden, got = filepath.Join(dir, name+".err"), stderr
				if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "shell: ") {
					t.Fatalf("a rejection must exit 1 with nothing on stdout and one shell: line on stderr; got %d %q %q", code, stdout, stderr)
				}
			} else if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if os.Getenv("UPDATE_GOLDEN") != "" {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s:\ngot  %s\nwant %s", golden, got, want)
			}
		})
	}
}

func TestTranslateJSONContract(t *testing.T) {
	code, stdout, _ := translateCLI(t, "#!/usr/bin/env -S python3 -u\nprint(1)\n", "--call-id", "call_7")
	var out map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &out) != nil {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	for _, k := range []string{"kind", "interpreter", "argv", "cmd", "args", "carrier", "retained", "script_ref", "warnings"} {
		if _, ok := out[k]; !ok {
			t.Errorf("stdout lacks %q: %s", k, stdout)
		}
	}
	if out["retained"] != true || out["script_ref"] != "@shell/call_7" {
		t.Errorf("a retainable input reports retained:true and @shell/<call-id>: %s", stdout)
	}
	if args := out["args"].(map[string]any); args["cmd"] != out["cmd"] || args["login"] != false {
		t.Errorf("args must carry cmd and login:false: %s", stdout)
	}
}

func TestTranslateCLIRules(t *testing.T) {
	t.Run("direct omits argv and is not retained", func(t *testing.T) {
		_, stdout, _ := translateCLI(t, "rtk test\n")
		if strings.Contains(stdout, `"argv"`) || !strings.Contains(stdout, `"retained":false`) || !strings.Contains(stdout, `"warnings":[]`) {
			t.Errorf("stdout %s", stdout)
		}
	})
	t.Run("an unsafe call id is not retained", func(t *testing.T) {
		_, stdout, _ := translateCLI(t, "#!python3\nx", "--call-id", "../x")
		if !strings.Contains(stdout, `"retained":false,"script_ref":""`) {
			t.Errorf("stdout %s", stdout)
		}
	})
	t.Run("--retain=false reports no retention", func(t *testing.T) {
		_, stdout, _ := translateCLI(t, "#!python3\nx", "--retain=false")
		if !strings.Contains(stdout, `"retained":false`) {
			t.Errorf("stdout %s", stdout)
		}
	})
	t.Run("a script reference cannot be resolved by the CLI", func(t *testing.T) {
		code, stdout, stderr := translateCLI(t, "#!script=@shell/call_1\n")
		if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "shell: ") {
			t.Errorf("got %d %q %q", code, stdout, stderr)
		}
	})
	t.Run("--help explains the contract on stdout", func(t *testing.T) {
		code, stdout, _ := translateCLI(t, "", "--help")
		if code != 0 || !strings.Contains(stdout, "--params-shape") || !strings.Contains(stdout, "script_ref") {
			t.Errorf("got %d %q", code, stdout)
		}
	})
	t.Run("a bad flag exits 2", func(t *testing.T) {
		if code, _, _ := translateCLI(t, "", "--nope"); code != 2 {
			t.Errorf("exit %d", code)
		}
	})
	t.Run("a params shape from the real Codex exec_command declaration", func(t *testing.T) {
		f := filepath.Join("..", "..", "testdata", "translate", "exec_command.d.ts")
		code, _, stderr := translateCLI(t, "#!params={\"cwd\":\"/tmp\"}\nls", "--params-shape", f)
		want := "known: justification, login, max_output_tokens, prefix_rule, sandbox_permissions, shell, tty, workdir, yield_time_ms\n"
		if code != 1 || !strings.HasSuffix(stderr, want) {
			t.Errorf("got %d %q, want it to end with %q", code, stderr, want)
		}
		if code, _, stderr := translateCLI(t, "#!params={\"workdir\":\"/tmp\",\"tty\":true}\nls", "--params-shape", f); code != 0 {
			t.Errorf("known keys must be accepted: %d %q", code, stderr)
		}
	})
	t.Run("a params shape as a bullet list, read like the router reads it", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "shape.md")
		os.WriteFile(f, []byte("Parameters:\n- `cmd` (string): the command\n- `workdir` (string, optional): dir\n- tty?: bool\n"), 0o600)
		code, _, stderr := translateCLI(t, "#!params={\"yield_time_ms\":5}\nls", "--params-shape", f)
		if code != 1 || !strings.HasSuffix(stderr, "known: workdir, tty\n") {
			t.Errorf("got %d %q", code, stderr)
		}
	})
	t.Run("a params shape file with no exec_command arguments exits 2", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "names.json")
		os.WriteFile(f, []byte(`["workdir","tty"]`), 0o600)
		if code, _, stderr := translateCLI(t, "ls", "--params-shape", f); code != 2 || !strings.Contains(stderr, "exec_command(args: { … })") {
			t.Errorf("got %d %q", code, stderr)
		}
	})
}
