package plugins

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"hpatch-router/internal/testenv"
)

// TestPluginBundleFresh fails when plugins/shell.bundle.json no longer
// matches what build.mjs generates from shell.mjs (run `make bundle`).
func TestPluginBundleFresh(t *testing.T) {
	node := testenv.NeedTool(t, "node")
	out, err := exec.Command(node, "build.mjs", "--stdout").Output()
	if err != nil {
		t.Fatalf("node build.mjs: %v", err)
	}
	committed, err := os.ReadFile("shell.bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, committed) {
		t.Fatal("plugins/shell.bundle.json is stale: run `make bundle` and commit it")
	}
}

func TestPluginTools(t *testing.T) {
	tests := []struct {
		rule   string
		raw    []byte
		name   string
		format string
	}{
		{"A13: shell is a free-form custom tool", ShellTool(), "shell", "text"},
		{"§8: hpatch is a grammar-constrained custom tool", HpatchTool(), "hpatch", "grammar"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			var tool struct {
				Type        string `json:"type"`
				Name        string `json:"name"`
				Description string `json:"description"`
				Format      struct {
					Type       string `json:"type"`
					Syntax     string `json:"syntax"`
					Definition string `json:"definition"`
				} `json:"format"`
			}
			if err := json.Unmarshal(tt.raw, &tool); err != nil {
				t.Fatalf("tool JSON: %v\n%s", err, tt.raw)
			}
			if tool.Type != "custom" || tool.Name != tt.name || tool.Format.Type != tt.format || tool.Description == "" {
				t.Fatalf("unexpected tool %+v", tool)
			}
			if tt.format == "grammar" && (tool.Format.Syntax != "lark" || tool.Format.Definition != HpatchGrammar() ||
				!strings.HasPrefix(HpatchGrammar(), "start: ") || strings.Contains(HpatchGrammar(), "\n//")) {
				t.Fatalf("hpatch must declare the Lark grammar without comments: %+v", tool.Format)
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, tt.raw); err != nil || !bytes.Equal(buf.Bytes(), tt.raw) {
				t.Fatalf("tool bytes are not compact JSON: %s", tt.raw)
			}
			if !bytes.Equal(tt.raw, func() []byte {
				if tt.name == "shell" {
					return ShellTool()
				}
				return HpatchTool()
			}()) {
				t.Fatal("tool bytes are not deterministic")
			}
		})
	}
}

func TestPluginShellDescription(t *testing.T) {
	d := ShellDescription()
	must := []struct{ rule, text string }{
		{"A2: bare selector example", "#!python3"},
		{"A3: env -S example", "#!/usr/bin/env -S python3 -u"},
		{"A7: no shebang is bash", "without one the input is bash"},
		{"A4: cmd template with placeholder", "#!cmd="},
		{"A4: placeholder", "{.}"},
		{"A12: params directive", "#!params="},
		{"A17: retained flag", "retained"},
		{"A17: script_ref", "script_ref"},
		{"A17: rerun reference", "#!script=@shell/<id>"},
		{"A17: edit tool", "hpatch"},
		{"§7: hread rows", "hread PATH [START:END]"},
		{"§7: hread reference", "hread @shell/<id>"},
		{"§7: hgrep rows", "\"PATH\":LINE:HASH TEXT"},
		{"§7: hsymbol syntax", "hsymbol def|refs PATH LINE:HASH SYMBOL [N]"},
		{"§7: inspect_file", "inspect_file PATH"},
		{"A10: input limit", "131071"},
		{"issue 25: no wrappers or patches, files go to hpatch", "no JSON, quoting, code fences or patches: edit files with hpatch"},
	}
	for _, m := range must {
		if !strings.Contains(d, m.text) {
			t.Errorf("%s: description lacks %q", m.rule, m.text)
		}
	}
	if strings.Contains(d, "tools.exec_command") {
		t.Error("A13: shell description names tools.exec_command")
	}
	if !utf8.ValidString(d) {
		t.Error("description is not UTF-8")
	}
	t.Logf("shell description: %d bytes; hpatch description: %d bytes", len(d), len(HpatchDescription()))
}

func TestPluginHpatchGrammar(t *testing.T) {
	d := HpatchDescription()
	for _, s := range []string{"in @shell/<id>", "in PATH", "type TARGET VALUE", "add DEST VALUE", "L:HASH..L:HASH", "<<PATCH", "EOF", "as they were before this edit",
		"`rm`", "`mv DEST`", "`new PATH` then `type VALUE`", "\"TEXT\" [COUNT]", "not both"} {
		if !strings.Contains(d, s) {
			t.Errorf("§8: hpatch description lacks %q", s)
		}
	}
}

func TestPluginInputLimitMatchesBundle(t *testing.T) {
	var b struct {
		InputLimit int `json:"input_limit"`
	}
	if err := json.Unmarshal(Bundle(), &b); err != nil {
		t.Fatal(err)
	}
	if b.InputLimit != InputLimit {
		t.Fatalf("bundle input_limit %d != InputLimit %d", b.InputLimit, InputLimit)
	}
}

func TestPluginParamsSection(t *testing.T) {
	tests := []struct {
		rule   string
		fields string
		ts     bool
		want   string
	}{
		{"A13: TypeScript fields in an object type", "  tty?: boolean;\n", true,
			"\n\n#!params fields (exec_command arguments except cmd):\n```ts\n{\n  tty?: boolean;\n}\n```"},
		{"A13: bullet shape appended as is", "- `tty`: allocate a PTY\n", false,
			"\n\n#!params fields (exec_command arguments except cmd):\n- `tty`: allocate a PTY\n"},
	}
	for _, tt := range tests {
		if got := ParamsSection(tt.fields, tt.ts); got != tt.want {
			t.Errorf("%s: ParamsSection = %q, want %q", tt.rule, got, tt.want)
		}
	}
}
