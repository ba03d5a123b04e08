package shebang

import (
	"errors"
	"strings"
	"testing"
)

func TestTranslateA10Rejections(t *testing.T) {
	// n argv values: python3, n-2 options, the body.
	manyFields := func(n int) string { return "#!python3" + strings.Repeat(" -v", n-2) + "\nx" }
	// "shell bash '" + body + "'" is 13 bytes plus the body.
	fits := "#!bash\nx " + strings.Repeat("a", MaxArgBytes-13-2)
	runTable(t, []tc{
		{name: "A10: an empty selector rejects", in: "#!\nprint(1)", errSub: "empty shebang selector", line: 1},
		{name: "A10: a blank selector rejects", in: "#! \t \nprint(1)", errSub: "empty shebang selector", line: 1},
		{name: "A10: env without an executable rejects", in: "#!/usr/bin/env\nx", errSub: "names no executable", line: 1},
		{name: "A10: env -S without an executable rejects", in: "#!env -S\nx", errSub: "names no executable", line: 1},
		{name: "A10: an env option other than -S rejects", in: "#!/usr/bin/env -i python3\nx", errSub: `"-i"`, line: 1},
		{name: "A10: an env assignment rejects", in: "#!/usr/bin/env PYTHONUTF8=1 python3\nx", errSub: "PYTHONUTF8=1", line: 1},
		{name: "A10: a selector that starts with an option rejects", in: "#!-x python3\nx", errSub: "option", line: 1},
		{name: "A10: a NUL byte rejects with its line", in: "ls\necho a\x00b\n", errSub: "NUL", line: 2},
		{name: "A10: invalid UTF-8 rejects with its line", in: "#!python3\nx\n\xff\n", errSub: "UTF-8", line: 3},
		{name: "A10: more than 256 argv values reject", in: manyFields(MaxArgv + 1), errSub: "257 argv values", line: 1},
		{name: "A10: exactly 256 argv values are accepted", in: manyFields(MaxArgv), kind: KindWorker},
		{name: "A10: a body over 131071 bytes rejects", in: "#!python3\n" + strings.Repeat("a", MaxArgBytes+1), errSub: "131072 bytes", line: 2},
		{name: "A10: an oversized shebang field rejects", in: "#!python3 " + strings.Repeat("a", MaxArgBytes+1) + "\nx", errSub: "field 2", line: 1},
		{name: "A10: a command of exactly 131071 bytes is accepted", in: fits, kind: KindWorker},
		{name: "A10: a command one byte over the argv limit rejects", in: fits + "a", errSub: "131072 bytes after quoting"},
		{name: "A10: quoting growth counts against the limit", in: "#!python3\n" + strings.Repeat("\n", 70000), errSub: "after quoting"},
		{name: "A10: a template over the limit rejects", in: "#!cmd=" + strings.Repeat("x", MaxArgBytes) + " {.}\nls", errSub: "after quoting"},
	})
}

func TestTranslateA12Params(t *testing.T) {
	const want = `{"cmd":"x | shell bash ls","workdir":"/tmp","tty":true,"login":false}`
	const plain = `{"cmd":"shell bash ls","workdir":"/tmp","tty":true,"login":false}`
	runTable(t, []tc{
		{name: "A12: params before #!cmd= give those fields and the router cmd",
			in: "#!params={\"workdir\":\"/tmp\",\"tty\":true}\n#!cmd=x | {.}\nls", args: want},
		{name: "A12: params after #!cmd= give the same carrier",
			in: "#!cmd=x | {.}\n#!params={\"workdir\":\"/tmp\",\"tty\":true}\nls", args: want},
		{name: "A12: params after a python shebang",
			in:   "#!python3\n#!params={\"workdir\":\"/tmp\",\"tty\":true}\nprint(1)\n",
			args: `{"cmd":"shell -e python3 'print(1)\\n'","workdir":"/tmp","tty":true,"login":false}`},
		{name: "A12: params alone keep the helper", in: "#!params={\"workdir\":\"/tmp\",\"tty\":true}\nls", kind: KindWorker, args: plain},
		{name: "A12: tolerated #!params JSON spelling", in: "#!params {\"workdir\":\"/tmp\",\"tty\":true}\nls", args: plain},
		{name: "A12: tolerated # !params JSON spelling", in: "# !params {\"workdir\":\"/tmp\",\"tty\":true}\nls", args: plain},
		{name: "A12: tolerated # !params= spelling", in: "#  !params={\"workdir\":\"/tmp\",\"tty\":true}\nls", args: plain},
		{name: "A12: params JSON is compacted, order kept",
			in:   "#!params={ \"tty\" : true ,\t\"env\": {\"A\": 1.50} }\nls",
			args: `{"cmd":"shell bash ls","tty":true,"env":{"A":1.50},"login":false}`},
		{name: "A12: login false is kept where it was given and not repeated",
			in: "#!params={\"login\":false,\"tty\":true}\nls", args: `{"cmd":"shell bash ls","login":false,"tty":true}`},
		{name: "A12: params containing cmd reject", in: "#!params={\"cmd\":\"ls\"}\nls", errSub: "must not contain cmd", line: 1},
		{name: "A12: login true rejects", in: "#!cmd={.}\n#!params={\"login\":true}\nls", errSub: "login must be false", line: 2},
		{name: "A12: login as a string rejects", in: "#!params={\"login\":\"false\"}\nls", errSub: "login must be false", line: 1},
		{name: "A12: malformed params JSON rejects", in: "#!params={\"tty\":}\nls", errSub: "not valid JSON", line: 1},
		{name: "A12: truncated params JSON rejects", in: "#!params={\"tty\":true\nls", errSub: "not valid JSON", line: 1},
		{name: "A12: non-object params reject", in: "#!params=[1]\nls", errSub: "must be a JSON object", line: 1},
		{name: "A12: text after the params object rejects", in: "#!params={} {}\nls", errSub: "text after", line: 1},
		{name: "A12: empty params reject", in: "#!params=\nls", errSub: "not valid JSON", line: 1},
		{name: "A12: a repeated params key rejects", in: "#!params={\"tty\":true,\"tty\":false}\nls", errSub: "repeats the key", line: 1},
		{name: "A12: a duplicate params directive rejects", in: "#!params={}\n# !params {}\nls", errSub: "duplicate #!params", line: 2},
		{name: "A12: a duplicate cmd directive rejects", in: "#!cmd={.}\n#!cmd={.}\nls", errSub: "duplicate #!cmd=", line: 2},
		{name: "A12: an unsupported leading directive rejects", in: "#!python3\n#!timeout=5\nx", errSub: "unsupported directive #!timeout=", line: 2},
		{name: "A12: an unsupported directive on the first line rejects", in: "#!foo=bar\nls", errSub: "unsupported directive #!foo=", line: 1},
		{name: "A12: a script reference with a body rejects", in: "#!script=@shell/a\nls", errSub: "whole input", line: 1},
		{name: "A12: a shebang after a directive rejects", in: "#!params={}\n#!python3\nx", errSub: "first line", line: 2},
		{name: "A12: a known params shape accepts its keys",
			in: "#!params={\"workdir\":\"/tmp\"}\nls", opts: Options{Params: untyped("workdir", "tty")}, kind: KindWorker},
		{name: "A12: a known params shape rejects other keys and lists the known ones",
			in: "#!params={\"cwd\":\"/tmp\"}\nls", opts: Options{Params: untyped("workdir", "tty")}, errSub: `"cwd" is not an exec_command argument; known: workdir, tty`, line: 1},
		{name: "A12: login:false is accepted even when the shape does not list it",
			in: "#!params={\"login\":false}\nls", opts: Options{Params: untyped("workdir")}, args: `{"cmd":"shell bash ls","login":false}`},
		{name: "A12: params after the first body line are body data",
			in: "ls\n#!params={\"cmd\":1}\n", kind: KindWorker, argv: []string{"bash", "ls\n#!params={\"cmd\":1}\n"}},
		{name: "A12: a plain comment ends the directive block",
			in: "#!python3\n# params {}\n#!params={}\n", argv: []string{"python3", "# params {}\n#!params={}\n"}},
	})
}

func TestTranslateA16Warnings(t *testing.T) {
	runTable(t, []tc{
		{name: "A16: every distinct wrapper and heredoc kind warns once, in order",
			in:   "python3 -c 'print(1)'\nnode -e 1\nbash -lc ls\nperl -ne 1\npsql --command='select 1'\npython3 - <<EOF\nx\nEOF\ncat <<'EOF' >f\ny\nEOF\n",
			warn: []string{"python -c", "node -e", "bash -c", "perl -e", "psql -c", "interpreter heredoc", "heredoc adds"}},
		{name: "A16: a repeated kind warns once",
			in: "python3 -c 1\npython3.12 -c 2\nsudo python -Bc 3\n", warn: []string{"python -c"}},
		{name: "A16: wrappers inside substitutions and pipelines are found",
			in: "x=$(node --eval 1) | sh -c ls\n", warn: []string{"node -e", "bash -c"}},
		{name: "A16: a python body is not scanned as shell",
			in: "#!python3\nos.system(\"bash -c ls\")\n", warn: []string{}},
		{name: "A16: a #!cmd= template is scanned",
			in: "#!cmd=bash -c 'curl -s URL' | {.}\nls\n", warn: []string{"bash -c"}},
		{name: "A16: a warning does not change the command",
			in: "#!bash\npython3 -c 1\n", cmd: `shell -e bash 'python3 -c 1\n'`, warn: []string{"python -c"}},
		{name: "A16: sh bodies are scanned with POSIX syntax",
			in: "#!sh\nruby -e 1\n", warn: []string{"ruby -e"}},
		{name: "A16: plain commands give no warning", in: "ls -la\ngo test ./...\n", warn: []string{}},
	})
}

func TestTranslateA16Recovered(t *testing.T) {
	js := "// @exec: {\"yield_time_ms\":1000}\nconst r = await tools.exec_command({cmd: \"python3 -c 'print(1)'\\ncat <<EOF\\nx\\nEOF\"});\ntext(JSON.stringify(r));\n"
	p, err := Translate(js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != KindRecovered || p.Script != js || p.Cmd != "" || p.Argv != nil || p.Retainable {
		t.Fatalf("A16: recovered JavaScript must be sent unchanged as the carrier; got %+v", p)
	}
	c := p.Carrier(Retention{})
	lines := strings.Split(c, "\n")
	if lines[0] != `// @exec: {"yield_time_ms":1000}` {
		t.Errorf("A16: the @exec pragma must stay the first line; carrier:\n%s", c)
	}
	if !strings.Contains(lines[1], "Code Mode JavaScript") || !strings.Contains(lines[2], "python -c") || !strings.Contains(lines[3], "heredoc") {
		t.Errorf("A16: the recovery notice comes first, then each nested shell warning; carrier:\n%s", c)
	}
	if !strings.HasSuffix(c, strings.SplitN(js, "\n", 2)[1]) {
		t.Errorf("A16: the script after the notices must be unchanged; carrier:\n%s", c)
	}
	for _, in := range []string{"#!python3\nawait tools.x({}); text(1)", "await tools.x()\n", "echo text(1) tools"} {
		if p, err := Translate(in, Options{}); err == nil && p.Kind == KindRecovered {
			t.Errorf("A16: %q is not Code Mode JavaScript to recover", in)
		}
	}
}

func TestTranslateRetainable(t *testing.T) {
	runTable(t, []tc{
		{name: "retention: every non-bash interpreter is eligible", in: "#!python3\nx", retain: 1},
		{name: "retention: a bash input of three lines is not", in: "a\nb\nc\n", retain: -1},
		{name: "retention: a bash input of four lines is", in: "a\nb\nc\nd", retain: 1},
		{name: "retention: the shebang line counts as an input line", in: "#!sh\nb\nc\nd\n", retain: 1},
		{name: "retention: a direct command is not", in: "ls", retain: -1},
	})
}

// TestScriptDirectiveDiagnostics: a sole `#!script=` line that is not a
// rerun (scriptref.ScriptReference) is a line 1 diagnostic saying why.
func TestScriptDirectiveDiagnostics(t *testing.T) {
	for in, why := range map[string]string{
		"#!script=@shell/../x\n":        "path separator",
		"#!script=@shell/a b":           "blank",
		"#!script=@shell/.hpatch-tmp-x": "temporary files",
		"  #!script=shell/a":            "does not start with @shell/",
		"#!script=@shell/call_1":        "only the router can resolve",
	} {
		_, err := Translate(in, Options{})
		var d *Diagnostic
		if !errors.As(err, &d) || d.Line != 1 || !strings.Contains(d.Msg, why) {
			t.Errorf("Translate(%q) = %v; want a line 1 diagnostic saying %q", in, err, why)
		}
		if err != nil && strings.Count(err.Error(), "script_ref") > 1 {
			t.Errorf("Translate(%q) = %v; gives the same advice twice", in, err)
		}
	}
}
