package shebang

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// codeModeJS is JavaScript a model sends to `shell` by mistake; each must
// be recovered (and node_test checks each compiles).
var codeModeJS = []string{
	"const r = await tools.exec_command({cmd: \"ls -la\", workdir: \"/tmp\"});\ntext(JSON.stringify(r));",
	"// @exec: {\"yield_time_ms\":1000}\nconst r = await tools.exec_command({cmd: \"sleep 5\"});\ntext(r.output);\n",
	"for (const f of [\"a\",\"b\"]) {\n  const r = await tools.exec_command({cmd: `cat ${f}`});\n  text(r.output);\n}\n",
	"try {\n  const r = await tools.exec_command({cmd: \"make\"});\n  text(r.output);\n} catch (e) {\n  text(String(e));\n} finally {\n  text(\"done\");\n}\n",
	"const r = await tools.exec_command({ cmd: 'git status' })\ntext(r.output)\n",
	"await tools[\"exec_command\"]({cmd: \"ls\"}); text(\"done\")",
	"const rs = await Promise.all([\"a\", \"b\"].map(c => tools.exec_command({cmd: c})));\nfor (const r of rs) text(r.output);",
	"const out = (await tools.exec_command({cmd: \"ls\"})).output;\ntext(out.split(/\\n/).filter(l => /\\.go$/.test(l)).join(\"\\n\"));",
	"async function run(cmd) { return (await tools.exec_command({cmd})).output; }\ntext(await run(\"ls\"));",
	"text(`${(await tools.exec_command({cmd: `echo ${1 + 1}`})).output}`)",
	"const r = await tools.exec_command({cmd: \"test -f x\"});\nif (r.exit_code === 0) {\n  text(\"yes\");\n} else if (r.exit_code === 1) text(\"no\")\nelse {\n  text(\"?\");\n}",
	"const {output, exit_code: code = 0} = await tools.exec_command({cmd: \"ls\"}); text(output + code);",
	"/* run */ text(JSON.stringify(await tools.exec_command({cmd: \"ls\"})));",
	"let i = 0;\nwhile (i < 3) { await tools.exec_command({cmd: `echo ${i}`}); i++; }\ntext(\"ok\");\nreturn;",
	"const r = await tools.exec_command({cmd: \"ls\"});\nimage(r.output);\nreturn r.output;",
	"switch (1) {\ncase 1:\n  await tools.exec_command({cmd: 'a'});\n  break;\ndefault:\n}\ntext(1)\n",
	"const o = {a: 1, get b() { return 2; }, async c() {}, [\"d\"]: 3, ...{e: 4}};\nconst r = await tools?.exec_command?.({cmd: `x`});\ntext(JSON.stringify({o, r}))",
	"class Runner {\n  static n = 0;\n  #cmd;\n  constructor(cmd) { this.#cmd = cmd; }\n  async go() { return tools.exec_command({cmd: this.#cmd}); }\n}\ntext(JSON.stringify(await new Runner(\"ls\").go()));",
	"const n = 1_000 + 0x1f + 1e-3 + .5 + 10n.toString().length;\nconst r = await tools.exec_command({cmd: 'echo ' + n, yield_time_ms: 1000})\n;[1, 2].forEach(x => text(String(x)))\ntext(JSON.stringify(r))",
	"const r = await tools.exec_command({cmd: \"a\\\n b\"}); text(r.output ?? \"\"); let x = r.output?.length ?? 0; x **= 2; text(`${x}`);",
	"for (let i = 0; i < 2; i++) {\n  const r = await tools.exec_command({cmd: \"echo \" + i});\n  if (!r.output) continue;\n  text(r.output);\n}",
	"do {\n  await tools.exec_command({cmd: \"true\"});\n} while (false);\ntext(typeof tools === \"object\" ? 'y' : 'n');",
	"const results = [];\nfor await (const r of [tools.exec_command({cmd: 'ls'})]) results.push(r);\ntext(JSON.stringify(results));",
}

// shellMentioningJS is shell text a model writes that mentions Code Mode
// JavaScript; none may be recovered (issue 14 item 1).
var shellMentioningJS = []string{
	"rg -n \"await tools.exec_command(\" router/\nrg -n \"JSON.stringify(\" plugins/",
	"rg -n \"await tools.exec_command(\" router/",
	"cat > /tmp/a.mjs <<'EOF'\nconst r = await tools.exec_command({cmd: \"ls\"});\ntext(JSON.stringify(r));\nEOF\nnode /tmp/a.mjs",
	"cat <<EOF > a.mjs\nawait tools.exec_command({cmd:\"ls\"})\ntext(1)\nEOF",
	"cat <<'JS' | node --input-type=module\nawait tools.exec_command({cmd: 'ls'}); text(1)\nJS",
	"grep -rn 'await tools\\.exec_command(' . && grep -rn 'text(' src",
	"rg 'text\\(' src/ | rg tools.exec_command",
	"echo 'await tools.exec_command({cmd:\"ls\"}); text(1)'",
	"node -e 'await tools.exec_command({cmd: \"ls\"}); text(1)'",
	"git commit -m \"use await tools.exec_command(...) and text()\"",
	"sed -i 's/tools.exec_command(/tools.shell(/; s/text(/print(/' a.js",
	"# await tools.exec_command({cmd:\"ls\"}); text(1)\nls",
	"export X=1\nawait tools.exec_command({cmd:'ls'}); text(1)",
	"printf '%s\\n' \"await tools.x()\" \"text(1)\" > t.mjs",
	"jq '.tools | map(.name)' x.json; echo text(1)",
	"await tools.exec_command({cmd: 'ls'})\n",
	"x = tools.exec_command\ntext(x)",
	"(tools.exec_command({cmd: 'ls'}), text(1)",
}

func TestCodeModeRecognition(t *testing.T) {
	for _, in := range codeModeJS {
		if p, err := Translate(in, Options{}); err != nil || p.Kind != KindRecovered || p.Script != in {
			t.Errorf("A16: Code Mode JavaScript must be recovered unchanged: %q -> %+v %v", in, p, err)
		}
	}
	for _, in := range shellMentioningJS {
		if p, err := Translate(in, Options{}); err == nil && p.Kind == KindRecovered {
			t.Errorf("A16: shell text that mentions JavaScript must run as shell, not be recovered: %q", in)
		}
	}
}

// A heredoc inside a `bash -lc "…"` command string of recovered JavaScript
// gets its warning after the recovery notice (item 2).
func TestRecoveredJSNestedWarnings(t *testing.T) {
	js := "const r = await tools.exec_command({cmd: \"bash -lc \\\"cat <<EOF > out.txt\\nx\\nEOF\\\"\"});\ntext(r.output);\n" +
		"await tools.exec_command({cmd: `sudo -u bob python3 -c 'print(1)'`}); text('')\n"
	p, err := Translate(js, Options{})
	if err != nil || p.Kind != KindRecovered {
		t.Fatalf("not recovered: %+v %v", p, err)
	}
	want := []string{"`bash -c`", "a heredoc adds", "`python -c`"}
	if len(p.Warnings) != len(want) {
		t.Fatalf("warnings %q, want %q", p.Warnings, want)
	}
	for i, w := range want {
		if !strings.Contains(p.Warnings[i], w) {
			t.Errorf("warning %d = %q, want %q", i, p.Warnings[i], w)
		}
	}
}

// Every case and fuzz seed recovered as JavaScript compiles in node as the
// async function body Code Mode runs; and every positive case is
// JavaScript. Near misses of JavaScript (a byte dropped or added) are not
// held to this: the parser, a minifier's, accepts some that node rejects
// (a missing comma in an array, an undeclared private field), and such an
// input, run as the JavaScript it almost is, gets node's own syntax error.
// Shell text is never recovered (shellMentioningJS, FuzzCodeModeJS).
func TestNodeCompilesRecognizedJS(t *testing.T) {
	inputs := append(append([]string{}, codeModeJS...), shellMentioningJS...)
	inputs = append(inputs, jsFuzzSeeds()...)
	const harness = `
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const srcs = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(srcs.map((s) => {
  try { new AsyncFunction("tools", "text", "image", s); return ""; } catch (e) { return String(e); }
})));
`
	var errs []string
	nodeJSON(t, harness, inputs, &errs)
	if len(errs) != len(inputs) {
		t.Fatalf("node answered %d of %d inputs", len(errs), len(inputs))
	}
	recognized, wrong := 0, 0
	for i, src := range inputs {
		if isCodeModeJS(src) {
			recognized++
			if errs[i] != "" {
				if wrong++; wrong <= 20 {
					t.Errorf("recognized as JavaScript but node rejects it (%s): %q", errs[i], src)
				}
			}
		}
		if i < len(codeModeJS) && errs[i] != "" {
			t.Errorf("positive case is not JavaScript (%s): %q", errs[i], src)
		}
	}
	t.Logf("%d inputs, %d recognized, %d of those do not compile in node", len(inputs), recognized, wrong)
}

func jsFuzzSeeds() []string {
	return []string{
		"await tools.x({}); text(1)", "text(`${tools.a()}`)", "tools.x(); text(/)/)", "a\n(tools.x()); text(1)",
		"`${`${tools.a()}`}`; text(1)", "x = {a: tools.b()}\ntext(x)", "if (1) tools.a(); else text(2)",
		"'\\\n'; tools.a(); text()", "a?.b; tools.c(); text(d)", "for (;;) { tools.a(); text(1); break }",
		"label: for (const x of y) { tools.a(x); text(x); continue label }", "tools.a() /* \n */ text(1)",
		"tools.a()\n++b\ntext(b)", "#!/usr/bin/env node\ntools.a(); text(1)", "tools.a(); text(1) // end", "tools.a(); text(/(a)|b+/g)", "tools.a(); text(/[)]/)",
	}
}

// FuzzCodeModeJS: recognition never panics and is deterministic; a
// recognized input names tools; and a shell command that quotes any text
// as an argument (rg PATTERN DIR, echo '…') is never recognized, whatever
// JavaScript the text holds.
func FuzzCodeModeJS(f *testing.F) {
	for _, s := range append(append(jsFuzzSeeds(), codeModeJS...), shellMentioningJS...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := isCodeModeJS(s)
		if got != isCodeModeJS(s) {
			t.Fatal("not deterministic")
		}
		if got && !strings.Contains(s, "tools") {
			t.Fatalf("recognized %q without a tools call", s)
		}
		q, err := syntax.Quote(s, syntax.LangBash)
		if err != nil {
			return
		}
		for _, cmd := range []string{"rg -n " + q + " router/", "echo " + q, "grep -rn " + q + " ."} {
			if isCodeModeJS(cmd) {
				t.Fatalf("shell command %q recognized as JavaScript", cmd)
			}
		}
	})
}
