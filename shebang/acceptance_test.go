package shebang

import (
	"slices"
	"strings"
	"testing"

	"hpatch-router/jsonline"
)

// tc is one acceptance row. Zero-valued expectations are not checked,
// except that a row with errSub set must reject and one without must not.
type tc struct {
	name   string
	in     string
	opts   Options
	kind   Kind
	interp string
	argv   []string // nil: not checked; use noArgv to require none
	cmd    string
	args   string
	warn   []string // substrings, one per expected warning, in order
	retain int      // 0 unchecked, 1 retainable, -1 not
	errSub string
	line   int   // expected Diagnostic.Line when errSub is set
	habit  Habit // expected Plan.Habit (checked when kind is KindRecovered)
}

var noArgv = []string{}

func runTable(t *testing.T, rows []tc) {
	t.Helper()
	for _, c := range rows {
		t.Run(c.name, func(t *testing.T) {
			p, err := Translate(c.in, c.opts)
			if c.errSub != "" {
				d, ok := err.(*Diagnostic)
				if !ok {
					t.Fatalf("Translate(%q) = %+v, %v; want a *Diagnostic containing %q", c.in, p, err, c.errSub)
				}
				if !strings.Contains(d.Msg, c.errSub) || d.Line != c.line {
					t.Fatalf("diagnostic = line %d %q; want line %d containing %q", d.Line, d.Msg, c.line, c.errSub)
				}
				if p != nil {
					t.Fatalf("a rejected input must give no plan, got %+v", p)
				}
				if msg := d.Error(); strings.HasPrefix(msg, "shell:") || strings.ContainsAny(msg, "\r\n") {
					t.Fatalf("Error() = %q; want one line without the shell: prefix, which the edge adds", msg)
				}
				if carrier := RejectionCarrier(err); carrier != textStatement("shell: "+d.Error()) {
					t.Fatalf("RejectionCarrier = %s; want the diagnostic behind one shell: prefix", carrier)
				}
				return
			}
			if err != nil {
				t.Fatalf("Translate(%q): %v", c.in, err)
			}
			checkPlan(t, c, p)
		})
	}
}

func checkPlan(t *testing.T, c tc, p *Plan) {
	t.Helper()
	if c.kind != "" && p.Kind != c.kind {
		t.Errorf("kind = %q, want %q", p.Kind, c.kind)
	}
	if c.interp != "" && p.Interpreter != c.interp {
		t.Errorf("interpreter = %q, want %q", p.Interpreter, c.interp)
	}
	if c.argv != nil && !slices.Equal(p.Argv, c.argv) {
		t.Errorf("argv = %q, want %q", p.Argv, c.argv)
	}
	if c.cmd != "" && p.Cmd != c.cmd {
		t.Errorf("cmd = %q, want %q", p.Cmd, c.cmd)
	}
	if c.args != "" && string(p.Args) != c.args {
		t.Errorf("args = %s, want %s", p.Args, c.args)
	}
	if c.kind == KindRecovered && p.Habit != c.habit {
		t.Errorf("habit = %q, want %q", p.Habit, c.habit)
	}
	if strings.ContainsAny(p.Cmd, "\r\n") && p.Script == "" {
		t.Errorf("cmd %q is not one physical line", p.Cmd)
	}
	if c.warn != nil {
		if len(p.Warnings) != len(c.warn) {
			t.Fatalf("warnings = %q, want %d matching %q", p.Warnings, len(c.warn), c.warn)
		}
		for i, w := range c.warn {
			if !strings.Contains(p.Warnings[i], w) {
				t.Errorf("warning %d = %q, want it to mention %q", i, p.Warnings[i], w)
			}
		}
	}
	if c.retain != 0 && p.Retainable != (c.retain > 0) {
		t.Errorf("retainable = %v, want %v", p.Retainable, c.retain > 0)
	}
	if p.Kind != KindRecovered && !strings.HasSuffix(c.in, p.Body) {
		t.Errorf("body %q is not a suffix of the input", p.Body)
	}
	if p.Kind == KindRecovered && !partOfInput(c.in, p.Body) {
		t.Errorf("recovered body %q is not part of the input", p.Body)
	}
}

func TestTranslateA1ShebangAndBody(t *testing.T) {
	runTable(t, []tc{
		{name: "A1: env python3 is one physical shell python3 line with escaped terminators",
			in:   "#!/usr/bin/env python3\nimport sys\nprint('a')\n",
			kind: KindWorker, interp: "python3",
			argv: []string{"python3", "import sys\nprint('a')\n"},
			cmd:  `shell -e python3 'import sys\nprint('\''a'\'')\n'`,
			args: `{"cmd":"shell -e python3 'import sys\\nprint('\\''a'\\'')\\n'","login":false}`},
		{name: "A1: CRLF after the shebang is one terminator and body CRLFs stay",
			in: "#!python3\r\nprint(1)\r\n", argv: []string{"python3", "print(1)\r\n"}},
		{name: "A1: a lone CR ends the shebang line",
			in: "#!python3\rprint(1)", argv: []string{"python3", "print(1)"}},
		{name: "A1: shebang alone gives an empty body, quoted as ''",
			in: "#!python3", argv: []string{"python3", ""}, cmd: "shell python3 ''"},
		{name: "A1: shebang alone with its terminator gives an empty body",
			in: "#!python3\n", argv: []string{"python3", ""}},
		{name: "A1: the shebang line is trimmed of ASCII spaces and tabs only",
			in: " \t#!python3 \t\nx", argv: []string{"python3", "x"}},
		{name: "A1: no shebang selects bash with the complete input as body",
			in: "x=1\necho $x\n", kind: KindWorker, interp: "bash", argv: []string{"bash", "x=1\necho $x\n"}},
	})
}

func TestTranslateA2Selectors(t *testing.T) {
	runTable(t, []tc{
		{name: "A2: #!python3 selects python3", in: "#!python3\nx", argv: []string{"python3", "x"}},
		{name: "A2: #! python3 selects python3", in: "#! python3\nx", argv: []string{"python3", "x"}},
		{name: "A2: #!/usr/bin/env python3 selects python3", in: "#!/usr/bin/env python3\nx", argv: []string{"python3", "x"}},
		{name: "A2: bare env is removed too", in: "#!env python3\nx", argv: []string{"python3", "x"}},
		{name: "A2: a direct path stays unchanged", in: "#!/opt/python/bin/python3\nx",
			interp: "/opt/python/bin/python3", argv: []string{"/opt/python/bin/python3", "x"}},
		{name: "A2: only env and /usr/bin/env are removed; /bin/env is a direct path",
			in: "#!/bin/env python3\nx", argv: []string{"/bin/env", "python3", "x"}},
		{name: "A2: selector fields split at runs of spaces and tabs",
			in: "#!python3 \t -X  dev\nx", argv: []string{"python3", "-X", "dev", "x"}},
	})
}

func TestTranslateA3EnvS(t *testing.T) {
	runTable(t, []tc{
		{name: "A3: env -S python3 -u passes -u and the exact body",
			in:   "#!/usr/bin/env -S python3 -u\nimport sys\n",
			argv: []string{"python3", "-u", "import sys\n"}, cmd: `shell -e python3 -u 'import sys\n'`},
		{name: "A3: env -S without -S arguments", in: "#!env -S node\nx", argv: []string{"node", "x"}},
	})
}

func TestTranslateA4A5A6Template(t *testing.T) {
	runTable(t, []tc{
		{name: "A4: #!cmd= without shebang expands {.} to the quoted helper selecting bash",
			in:   "#!cmd=curl -fsSL URL | {.} | jq\njq_filter=1\necho \"$jq_filter\"\n",
			kind: KindTemplate, interp: "bash", argv: []string{"bash", "jq_filter=1\necho \"$jq_filter\"\n"},
			cmd: `curl -fsSL URL | shell -e bash 'jq_filter=1\necho "$jq_filter"\n' | jq`},
		{name: "A4: a directive line is trimmed",
			in: " \t#!cmd=curl URL | {.} \t\nls", cmd: "curl URL | shell bash ls"},
		{name: "A5: #!python3 before #!cmd= expands {.} to the helper selecting python3",
			in:   "#!python3\n#!cmd=curl -fsSL URL | {.} | jq\nimport sys\nprint(sys.stdin.read())\n",
			kind: KindTemplate, interp: "python3", argv: []string{"python3", "import sys\nprint(sys.stdin.read())\n"},
			cmd: `curl -fsSL URL | shell -e python3 'import sys\nprint(sys.stdin.read())\n' | jq`, retain: 1},
		{name: "A6: a template without {.} rejects", in: "#!cmd=curl -fsSL URL | jq\nls", errSub: "no {.}", line: 1},
		{name: "A6: an empty template rejects", in: "#!python3\n#!cmd=\nx", errSub: "empty #!cmd=", line: 2},
		{name: "A6: a blank template rejects", in: "#!cmd= \t\nx", errSub: "empty #!cmd=", line: 1},
		{name: "A6: a repeated {.} rejects", in: "#!cmd={.} | {.}\nx", errSub: "2 {.} placeholders", line: 1},
		{name: "A6: a command directive after the first body line is body text",
			in: "ls -l\n#!cmd=curl URL | {.}\n", kind: KindWorker, argv: []string{"bash", "ls -l\n#!cmd=curl URL | {.}\n"}},
		{name: "A6: a command directive after a python body line is body text",
			in: "#!python3\nprint(1)\n#!cmd=x {.}\n", kind: KindWorker, argv: []string{"python3", "print(1)\n#!cmd=x {.}\n"}},
	})
}

func TestTranslateA7Direct(t *testing.T) {
	rtk := `rtk shadowtree test . -run='^$'`
	direct := func(name, in, cmd string) tc {
		return tc{name: name, in: in, kind: KindDirect, interp: "bash", argv: noArgv, cmd: cmd,
			args: `{"cmd":` + jsonline.String(cmd) + `,"login":false}`, retain: -1}
	}
	helper := func(name, in string) tc {
		return tc{name: name, in: in, kind: KindWorker, interp: "bash", argv: []string{"bash", in}}
	}
	runTable(t, []tc{
		direct("A7: rtk shadowtree test is direct", rtk, rtk),
		direct("A7: one final LF is removed from a direct command", rtk+"\n", rtk),
		direct("A7: one final CRLF is removed from a direct command", rtk+"\r\n", rtk),
		direct("A7: leading and inner spacing of a direct command is kept", "  go  test ./... ", "  go  test ./... "),
		direct("A7: redirections and parameter expansions stay direct", "go test ./... >out.txt 2>&1 $HOME", "go test ./... >out.txt 2>&1 $HOME"),
		direct("A7: a path command name is external", "/usr/bin/env", "/usr/bin/env"),
		helper("A7: builtin echo is not direct", "echo hi"),
		helper("A7: builtin cd is not direct", "cd x"),
		helper("A7: a pipeline is a composed statement", "a | b"),
		helper("A7: a background statement is not direct", "ls &"),
		helper("A7: a negated statement is not direct", "! ls"),
		helper("A7: a list is a composed statement", "a && b"),
		helper("A7: two statements are not direct", "a; b"),
		helper("A7: a command substitution as the command is not direct", "$(pwd)"),
		helper("A7: a command substitution in an argument is not direct", "ls $(pwd)"),
		helper("A7: a backquote substitution is not direct", "ls `pwd`"),
		helper("A7: a process substitution is not direct", "diff <(ls a) b"),
		helper("A7: private hread is not direct", "hread main.go"),
		helper("A7: private hgrep is not direct", "hgrep -n foo"),
		helper("A7: private hsymbol is not direct", "hsymbol def main.go 1:abcd main"),
		helper("A7: private inspect_file is not direct", "inspect_file main.go"),
		helper("A7: malformed syntax keeps the helper", "ls 'unterminated"),
		helper("A7: two final terminators are more than one physical line", "ls\n\n"),
		helper("A7: a second line keeps the helper", "ls\nls"),
		helper("A7: a final backslash continues onto the terminator, so it keeps the helper", "ls \\\n"),
		helper("A7: a quoted command name is not static", "'rtk' test"),
		helper("A7: an expanded command name is not static", "$TOOL test"),
		helper("A7: an assignment alone is not a call", "FOO=1"),
		helper("A7: a time clause is not a simple call", "time ls"),
		helper("A7: a subshell is not a simple call", "(ls)"),
		helper("A7: an empty input keeps the helper", ""),
		helper("A7: a comment alone keeps the helper", "# nothing"),
		{name: "A7: explicit #!bash is never direct", in: "#!bash\nls\n", kind: KindWorker, interp: "bash", argv: []string{"bash", "ls\n"}},
		{name: "A7: /usr/bin/bash selects mvdan/sh Bash", in: "#!/usr/bin/bash\nls", interp: "bash", argv: []string{"bash", "ls"}},
		{name: "A7: /usr/bin/env bash selects Bash", in: "#!/usr/bin/env bash -e\nls", interp: "bash", argv: []string{"bash", "-e", "ls"}},
		{name: "A7: the basename rule is case-insensitive and allows .exe", in: "#!C:\\Git\\BIN\\BASH.EXE\nls", interp: "bash", argv: []string{"bash", "ls"}},
		{name: "A7: #!sh selects POSIX", in: "#!sh\nls", interp: "sh", argv: []string{"sh", "ls"}},
		{name: "A7: /bin/sh selects POSIX", in: "#!/bin/sh\nls", interp: "sh", argv: []string{"sh", "ls"}},
		{name: "A7: sh.exe selects POSIX", in: "#!sh.exe\nls", interp: "sh"},
		{name: "A7: a params directive keeps the helper", in: "#!params={}\nls", kind: KindWorker, argv: []string{"bash", "ls"}},
		{name: "A7: #!sh rejects Bash-only arrays at parse time", in: "#!sh\na=(1 2)\n", errSub: "Bash-only", line: 2},
		{name: "A7: /bin/sh rejects a process substitution on its line", in: "#!/bin/sh\necho ok\ncat <(ls)\n", errSub: "Bash-only", line: 3},
		{name: "A7: #!bash accepts the same syntax", in: "#!bash\na=(1 2)\n", kind: KindWorker},
		{name: "A7: sh syntax malformed in Bash too is left to the worker", in: "#!sh\nif\n", kind: KindWorker},
	})
}

func TestTranslateA8ByteExactBody(t *testing.T) {
	py := "\n  \tdef f():\n\t    return 1  \n\n\t\n"
	runTable(t, []tc{
		{name: "A8: python indentation and trailing whitespace are byte-exact",
			in: "#!python3\n" + py, argv: []string{"python3", py}},
		{name: "A8: leading body whitespace and a missing final terminator are kept",
			in: "#!python3\n   x = 1   ", argv: []string{"python3", "   x = 1   "}},
		{name: "A8: directive removal keeps the rest byte-exact",
			in: "#!python3\n#!params={\"tty\":true}\r\n    x = 1   \n  ", argv: []string{"python3", "    x = 1   \n  "}},
		{name: "A8: only the shebang terminator is removed, not a following blank line",
			in: "#!python3\n\n\nx\n\n", argv: []string{"python3", "\n\nx\n\n"}},
	})
}

// partOfInput reports a recovered body taken from the input: a part of it,
// or (a fenced transcript whose $ prompts were taken off) lines each of
// which is a part of one of its lines.
func partOfInput(in, body string) bool {
	if strings.Contains(in, body) {
		return true
	}
	for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if !strings.Contains(in, l) {
			return false
		}
	}
	return true
}
