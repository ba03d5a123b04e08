package shebang

import (
	"strings"
	"testing"
)

// Item 4 of issue 14: a UTF-8 byte order mark before the shebang or a
// leading directive is ignored (it is part of the first line, which never
// reaches the body); anywhere else it is body text, byte for byte.
func TestTranslateByteOrderMark(t *testing.T) {
	const bom = "\uFEFF"
	runTable(t, []tc{
		{name: "BOM: ignored before a shebang, body byte-exact", in: bom + "#!python3\nprint(1)\n",
			kind: KindWorker, argv: []string{"python3", "print(1)\n"}, warn: []string{}},
		{name: "BOM: ignored before an env -S shebang", in: bom + "#!/usr/bin/env -S python3 -u\r\nx\r\n",
			argv: []string{"python3", "-u", "x\r\n"}, warn: []string{}},
		{name: "BOM: ignored before blanks and a shebang", in: bom + " \t#!sh\necho hi\n", interp: "sh", warn: []string{}},
		{name: "BOM: ignored before a leading directive", in: bom + "#!params={\"tty\":true}\nls\n",
			args: `{"cmd":"shell -e bash 'ls\\n'","tty":true,"login":false}`, warn: []string{}},
		{name: "BOM: a diagnostic still names line 1", in: bom + "#!/usr/bin/env\nx\n", errSub: "names no executable", line: 1},
		{name: "BOM: before Bash text it is body text, with a note", in: bom + "ls -la\n",
			kind: KindDirect, cmd: bom + "ls -la", warn: []string{"byte order mark"}},
		{name: "BOM: starting a #!bash body it is body text, with a note", in: "#!bash\n" + bom + "echo hi\n",
			argv: []string{"bash", bom + "echo hi\n"}, warn: []string{"byte order mark"}},
		{name: "BOM: starting a python body it is body text, no note", in: "#!python3\n" + bom + "print(1)\n",
			argv: []string{"python3", bom + "print(1)\n"}, warn: []string{}},
		{name: "BOM: in the middle of a line it is text", in: "#!python3\nx = '" + bom + "'\n", warn: []string{}},
	})
}

// Item 3 of issue 14: after the first body line, directive-like lines are
// body data (REQ-SHELL-001); when only blank lines precede them the model
// meant a header, so a note names the line and the body stays as written.
func TestTranslateBodyHeaderLines(t *testing.T) {
	runTable(t, []tc{
		{name: "a #!params after a blank line is body text with a note naming line 3",
			in:   "#!python3\n\n#!params={\"workdir\":\"/tmp\"}\nprint(1)\n",
			argv: []string{"python3", "\n#!params={\"workdir\":\"/tmp\"}\nprint(1)\n"},
			args: `{"cmd":"shell -e python3 '\\n#!params={\"workdir\":\"/tmp\"}\\nprint(1)\\n'","login":false}`,
			warn: []string{"line 3 looks like a #!params directive"}},
		{name: "a #!cmd= after blank lines names its line",
			in: "#!python3\n \t\n\n#!cmd=curl -s URL | {.}\n", warn: []string{"line 4 looks like a #!cmd directive"}},
		{name: "every header-like line of the leading run is named",
			in:   "#!python3\n\n#!params {}\n# !params {}\nprint(1)\n",
			warn: []string{"line 3 looks like a #!params", "line 4 looks like a #!params"}},
		{name: "a rerun after a blank line runs nothing, and the note says a rerun is the whole input",
			in: "\n#!script=@shell/call_1\n", kind: KindWorker, argv: []string{"bash", "\n#!script=@shell/call_1\n"},
			warn: []string{"line 2 looks like a #!script rerun but is script text: a rerun is an input of that one line alone, with no blank line before it."}},
		{name: "an unsupported directive after a blank line is named too",
			in: "#!python3\n\n#!timeout=5\nprint(1)\n", warn: []string{"line 3 looks like a #!timeout directive"}},
		{name: "a shebang after a leading blank line selects its interpreter, with a note (issue 25)",
			in: "\n#!python3\nprint(1)\n", kind: KindRecovered, habit: HabitBlankLine, argv: []string{"python3", "print(1)\n"},
			warn: []string{"the blank line(s) before the header on line 2 were ignored"}},
		{name: "a second shebang after a blank line names the first one's interpreter",
			in: "#!python3\n\n#!/usr/bin/env node\n", warn: []string{"line 3 looks like a shebang but is script text: only the first line selects the interpreter, so the input runs as python3."}},
		{name: "after a non-blank body line a directive is plain body data",
			in: "#!python3\nimport os\n#!params={\"workdir\":\"/tmp\"}\n", warn: []string{}},
		{name: "after a comment line a directive is plain body data",
			in: "#!python3\n# setup\n#!params={}\n", warn: []string{}},
		{name: "a directive inside a Bash body is plain body data",
			in: "echo a\n#!params={}\n", warn: []string{}},
		{name: "the note does not quote the line's text",
			in: "#!python3\n\n#!params={\"env\":{\"TOKEN\":\"s3cret\"}}\n", warn: []string{"line 3"}},
	})
	p, err := Translate("#!python3\n\n#!params={\"env\":{\"TOKEN\":\"s3cret\"}}\n", Options{})
	if err != nil || len(p.Warnings) != 1 || strings.Contains(p.Warnings[0], "s3cret") || strings.Contains(p.Warnings[0], "TOKEN") {
		t.Fatalf("a note must name the line, not echo its text (warnings reach the dashboard): %q %v", p.Warnings, err)
	}
}
