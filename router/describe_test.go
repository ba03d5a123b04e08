package router

import (
	"strings"
	"testing"
)

func TestRequestTrimExecDescription(t *testing.T) {
	const sec = "### `exec_command`\nRuns.\n```ts\ndeclare const tools: { exec_command(args: {\n  cmd: string;\n  tty?: boolean;\n}): Promise<unknown>; };\n```\n"
	tests := []struct {
		rule string
		in   string
		want string
	}{
		{"A13: section in the middle ends at the next ### heading",
			"Intro.\n\n" + sec + "\n### `wait`\nWaits.", "Intro.\n\n### `wait`\nWaits."},
		{"A13: section ends at a ## namespace heading",
			"Intro.\n\n" + sec + "\n## web\nWeb tools.", "Intro.\n\n## web\nWeb tools."},
		{"A13: last section drops its separating blank lines",
			"Intro.\n\n" + sec, "Intro."},
		{"A13: headings inside a code fence do not end the section",
			"A\n\n### `exec_command`\n```\n## not a heading\n### nor this\n```\nstill section\n### `b`\nB", "A\n\n### `b`\nB"},
		{"A13: a #### heading does not end the section",
			"A\n### `exec_command`\n#### Notes\nx\n### `b`\nB", "A\n### `b`\nB"},
		{"A13: no section leaves the description alone",
			"Run JavaScript.\n### `wait`\nWaits.", "Run JavaScript.\n### `wait`\nWaits."},
		{"A13: intro example clause removed with its comma",
			"- All nested tools are available on the global `tools` object, for example `await tools.exec_command(...)`. Tool names are identifiers.",
			"- All nested tools are available on the global `tools` object. Tool names are identifiers."},
		{"A13: parenthesized example removed with its parentheses",
			"Call nested tools (e.g. `tools.exec_command({cmd})`) from JavaScript.",
			"Call nested tools from JavaScript."},
		{"A13: mention without lead-in removes its sentence",
			"First. Prefer tools.exec_command for commands. Last.",
			"First. Last."},
		{"A13: sentence at line end keeps the previous period",
			"First. Then call tools.exec_command.\nNext line.",
			"First.\nNext line."},
		{"A13: a bullet holding only the mention is removed",
			"- a\n- Use tools.exec_command\n- b", "- a\n- b"},
		{"A13: every mention goes",
			"x, for example `tools.exec_command()`. y, e.g. `await tools.exec_command({})`.", "x. y."},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got := trimExecDescription(tt.in).Description
			if got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
			if strings.Contains(got, nestedExecCommand) {
				t.Fatal("tools.exec_command remains")
			}
		})
	}
}

func TestRequestParamsShape(t *testing.T) {
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
		{"A13: unterminated declaration is no shape",
			"exec_command(args: {\n  cmd: string;\n  tty?: boolean;\n", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			s := parseParamsShape(tt.section)
			if s.Fields != tt.fields || strings.Join(s.Names, ",") != tt.names || (s.Fields != "" && s.TypeScript != tt.ts) {
				t.Fatalf("got %+v\nwant fields %q names %q", s, tt.fields, tt.names)
			}
		})
	}
}
