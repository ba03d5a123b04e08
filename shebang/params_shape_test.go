package shebang

import (
	"slices"
	"strings"
	"testing"
)

// TestParseParamsShape is the one #!params shape parser, as the router
// reads request descriptions and the translate CLI reads --params-shape.
func TestParseParamsShape(t *testing.T) {
	tests := []struct {
		rule    string
		section string
		fields  string
		names   string
		ts      bool
	}{
		{"A13: multi-line declaration keeps comments, drops cmd and its comment",
			"exec_command(args: {\n  // Shell command.\n  cmd: string;\n  // Dir.\n  workdir?: string;\n  tty?: boolean;\n}): Promise<{\n  output: string;\n}>",
			"  // Dir.\n  workdir?: string;\n  tty?: boolean;\n", "workdir,tty", true},
		{"A13: single-line declaration",
			"exec_command(args: { cmd: string; workdir?: string, tty?: boolean }): Promise<unknown>",
			"  workdir?: string;\n  tty?: boolean;\n", "workdir,tty", true},
		{"A13: generic and union types do not split fields",
			"exec_command(args: {\n  cmd: string;\n  env?: Record<string, string>;\n  mode?: \"a;b\" | \"c,d\";\n  cb?: (x: number) => void;\n}): X",
			"  env?: Record<string, string>;\n  mode?: \"a;b\" | \"c,d\";\n  cb?: (x: number) => void;\n", "env,mode,cb", true},
		{"A13: nested object field kept whole",
			"exec_command(args: {\n  cmd: string;\n  items?: Array<{\n    // inner\n    a?: string;\n  }>;\n}): X",
			"  items?: Array<{\n    // inner\n    a?: string;\n  }>;\n", "items", true},
		{"A13: trailing same-line comment stays with its field",
			"exec_command(args: {\n  cmd: string; // the command\n  tty?: boolean; // pty\n}): X",
			"  tty?: boolean; // pty\n", "tty", true},
		{"A13: cmd only gives an empty shape",
			"exec_command(args: { cmd: string }): X", "", "", true},
		{"A13: bullet list with continuation lines",
			"Parameters:\n- `cmd` (string): the command\n- `workdir` (string, optional): dir\n  more about dir\n- tty?: bool\nAfter.",
			"- `workdir` (string, optional): dir\n  more about dir\n- tty?: bool\n", "workdir,tty", false},
		{"A13: bullets without cmd are prose, not a shape",
			"- Use this to run things.\n- `output`: text", "", "", false},
		{"A13: quoted field names are names without their quotes",
			"exec_command(args: {\n  cmd: string;\n  \"workdir\"?: string;\n  'tty'?: boolean;\n}): X",
			"  \"workdir\"?: string;\n  'tty'?: boolean;\n", "workdir,tty", true},
		{"A13: a repeated field keeps its first declaration",
			"exec_command(args: {\n  cmd: string;\n  tty?: boolean;\n  tty?: string;\n}): X",
			"  tty?: boolean;\n", "tty", true},
		{"A13: a Parameters: line is not a field",
			"Parameters:\n  workdir: dir\n  tty: bool\n", "", "", false},
		{"A13: the full Codex 0.169 declaration stops at the argument object",
			"declare const tools: { exec_command(args: {\n  // Shell command to execute.\n  cmd: string;\n  // why\n  justification?: string;\n  login?: boolean;\n}): Promise<{\n  chunk_id?: string;\n  output: string;\n}>; };",
			"  // why\n  justification?: string;\n  login?: boolean;\n", "justification,login", true},
		{"A13: a JSON array of names is no shape",
			`["cmd","workdir","tty"]`, "", "", false},
		{"A13: unterminated declaration is no shape",
			"exec_command(args: {\n  cmd: string;\n  tty?: boolean;\n", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			s := ParseParamsShape(tt.section)
			if s.Fields != tt.fields || strings.Join(s.Names(), ",") != tt.names || (s.Fields != "" && s.TypeScript != tt.ts) {
				t.Fatalf("got %+v\nwant fields %q names %q", s, tt.fields, tt.names)
			}
		})
	}
}

// FuzzParseParamsShape: the names are what Translate will accept as
// #!params keys, so each is a non-empty identifier other than cmd, named
// once, and present in the extracted fields the model is shown.
func FuzzParseParamsShape(f *testing.F) {
	f.Add("exec_command(args: {\n  cmd: string;\n  \"workdir\"?: string;\n  tty?: boolean; // pty\n}): X")
	f.Add("Parameters:\n- `cmd` (string): c\n- `tty`: t\n  more\n")
	f.Add("exec_command(args: { cmd: string; a?: Record<string, (x: number) => void>; /* c */ b: \"q;\" })")
	f.Fuzz(func(t *testing.T, section string) {
		s := ParseParamsShape(section)
		for i, n := range s.Names() {
			switch {
			case n == "" || n == "cmd":
				t.Fatalf("name %q in %+v", n, s)
			case slices.Contains(s.Names()[:i], n):
				t.Fatalf("name %q twice in %+v", n, s)
			case !strings.Contains(s.Fields, n):
				t.Fatalf("name %q is not in the fields %q", n, s.Fields)
			}
		}
		if (s.Fields == "") != (len(s.Names()) == 0) {
			t.Fatalf("fields and names disagree: %+v", s)
		}
	})
}

// untyped is a shape of names whose types the router could not read: any
// value is admitted.
func untyped(names ...string) []Param {
	out := make([]Param, len(names))
	for i, n := range names {
		out[i] = Param{Name: n}
	}
	return out
}
