package request

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

// A shape whose text would close the #!params code block of the shell
// description, or teach tools.exec_command again, is dropped: the shell
// description keeps its base text and any #!params key is accepted.
func TestRequestParamsShapeMustBeSafe(t *testing.T) {
	for name, field := range map[string]string{
		"a code fence":         "  // see ```ts example```\n  tty?: boolean;\n",
		"the nested tool call": "  // like tools.exec_command({tty: true})\n  tty?: boolean;\n",
	} {
		desc := "### `exec_command`\n```ts\ndeclare const tools: { exec_command(args: {\n  cmd: string;\n" + field + "}): Promise<unknown>; };\n```\n"
		if got := trimExecDescription(desc).Shape; got.Fields != "" || got.Params != nil {
			t.Errorf("%s: shape %+v kept", name, got)
		}
	}
	ok := trimExecDescription("### `exec_command`\nexec_command(args: {\n  cmd: string;\n  tty?: boolean;\n}): X\n").Shape
	if ok.Fields != "  tty?: boolean;\n" {
		t.Errorf("a plain shape must be kept, got %+v", ok)
	}
}
