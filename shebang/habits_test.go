package shebang

import (
	"encoding/json"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// habitCases are inputs in another tool's habit (issue 25): each is either
// recovered as the program the model meant, with a note, or refused with a
// line that names the mistake. They are fuzz seeds too.
var habitCases = []tc{
	// Markdown fences: one fence whose language names an interpreter, or none.
	{name: "fence: python runs as python3 without the fence lines", in: "```python\nprint(1)\n```",
		kind: KindRecovered, habit: HabitFence, interp: "python3", argv: []string{"python3", "print(1)\n"}, retain: -1,
		warn: []string{"the input was a Markdown fence, so its ``` lines were dropped and it ran as python3"}},
	{name: "fence: CRLF lines, python3 tag, final terminator", in: "```python3\r\nimport sys\r\nprint(sys.argv)\r\n```\r\n",
		kind: KindRecovered, habit: HabitFence, argv: []string{"python3", "import sys\r\nprint(sys.argv)\r\n"}},
	{name: "fence: no language runs as Bash, a simple command stays direct", in: "```\nls -la\n```\n",
		kind: KindRecovered, habit: HabitFence, interp: "bash", argv: noArgv, cmd: "ls -la", retain: -1},
	{name: "fence: bash tag, several lines run in the worker", in: "```bash\ncd /tmp\nls\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"bash", "cd /tmp\nls\n"}},
	{name: "fence: sh tag means the Bash models write under it", in: "```sh\n[[ -d /tmp ]] && echo ok\n```",
		kind: KindRecovered, habit: HabitFence, interp: "bash"},
	{name: "fence: js tag runs as node", in: "```js\nconsole.log(1)\n```", kind: KindRecovered, habit: HabitFence,
		argv: []string{"node", "console.log(1)\n"}},
	{name: "fence: a shebang inside decides", in: "```\n#!/usr/bin/env -S python3 -u\nprint(1)\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"python3", "-u", "print(1)\n"}},
	{name: "fence: four backticks, indented, blank lines around", in: "\n  ````py\nx = 1\n  ````\n\n",
		kind: KindRecovered, habit: HabitFence, argv: []string{"python3", "x = 1\n"}},
	{name: "fence: a #!params near miss inside is read too, both noted",
		in:   "```python\n!params {\"workdir\":\"/tmp\"}\nprint(1)\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"python3", "print(1)\n"},
		args: `{"cmd":"shell -e python3 'print(1)\\n'","workdir":"/tmp","login":false}`,
		warn: []string{"Markdown fence", "line 2 was read as the #!params= directive"}},
	{name: "fence: a diagnostic inside names the input's line", in: "```python\n#!params={\"cmd\":\"x\"}\nprint(1)\n```",
		errSub: "must not contain cmd", line: 2},
	{name: "fence: a shebang error inside names the input's line", in: "\n```\n#!/usr/bin/env\nx\n```",
		errSub: "names no executable", line: 3},
	{name: "fence: never closed is refused", in: "```python\nprint(1)\n", errSub: "never closes", line: 1},
	{name: "fence: a second fence is refused at its line", in: "```python\na = 1\n```\n```python\nb = 2\n```\n",
		errSub: "text after the Markdown fence that closes on line 3", line: 4},
	{name: "fence: prose after the fence is refused", in: "```\nls\n```\nThat lists the files.", errSub: "text after", line: 4},
	{name: "fence: a language that names no interpreter is refused by name", in: "```go\nfmt.Println(1)\n```",
		errSub: `the fence's language "go" names no interpreter`, line: 1},
	{name: "fence: JSON inside gets the JSON answer at its line", in: "```json\n{\"cmd\":\"ls\"}\n```",
		errSub: "not JSON: send `ls`", line: 2},
	{name: "fence: an apply_patch envelope inside is refused", in: "```diff\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n```",
		errSub: "apply_patch envelope", line: 2},
	{name: "fence: an empty fence is refused", in: "```python\n\n  \n```", errSub: "holds no program", line: 1},
	{name: "fence: a fence inside a fence is refused", in: "````\n```python\nx\n```\n````", errSub: "inside a fence", line: 2},

	// What stands in front of a fence (issue 35 item 2).
	{name: "fence: a comment before it is dropped", in: "# list the files\n```bash\nls -la\n```",
		kind: KindRecovered, habit: HabitFence, interp: "bash", argv: noArgv, cmd: "ls -la",
		warn: []string{"its ``` lines and the 1 line(s) of text before it were dropped"}},
	{name: "fence: prose introducing it is dropped", in: "Here is the script:\n\n```python\nprint(1)\n```\n",
		kind: KindRecovered, habit: HabitFence, argv: []string{"python3", "print(1)\n"}},
	{name: "fence: a BOM before it", in: "\uFEFF```python\nprint(1)\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"python3", "print(1)\n"}},
	{name: "fence: a BOM line and a comment before it", in: "\uFEFF\n# run\n```\nls\n```",
		kind: KindRecovered, habit: HabitFence, cmd: "ls", warn: []string{"the 2 line(s) of text before it"}},
	{name: "fence: a shebang before it is kept", in: "#!/usr/bin/env python3\n```python\nprint(1)\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"python3", "print(1)\n"}},
	{name: "fence: a shebang before a fence without language", in: "#!python3 -u\n```\nprint(1)\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"python3", "-u", "print(1)\n"}},
	{name: "fence: directives before it are kept", in: "#!params={\"workdir\":\"/tmp\"}\n```bash\nls\nwc -l f\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"bash", "ls\nwc -l f\n"},
		args: `{"cmd":"shell -e bash 'ls\\nwc -l f\\n'","workdir":"/tmp","login":false}`},
	{name: "fence: a shebang that contradicts the fence is refused", in: "#!python3\n```bash\nls\n```",
		errSub: "the shebang names python3 but the fence after it is bash", line: 1},
	{name: "fence: a shebang after a comment is refused", in: "# x\n#!python3\n```python\nprint(1)\n```",
		errSub: "a shebang after other text", line: 2},
	{name: "fence: prose that does not introduce it is refused", in: "I will list the files now\n```bash\nls\n```",
		errSub: "text before the Markdown fence", line: 1},
	{name: "fence: code before a fence is refused, not run", in: "ls\n```\nrm -rf x\n```",
		errSub: "text before the Markdown fence", line: 1},
	// ~~~ fences.
	{name: "fence: tildes", in: "~~~python\nprint(1)\n~~~",
		kind: KindRecovered, habit: HabitFence, argv: []string{"python3", "print(1)\n"}, warn: []string{"its ~~~ lines were dropped"}},
	{name: "fence: four tildes close only on four", in: "~~~~\nls\n~~~~\n", kind: KindRecovered, habit: HabitFence, cmd: "ls"},
	{name: "fence: tildes never closed by backticks", in: "~~~\nls\n```\n", errSub: "never closes", line: 1},
	// $ prompts.
	{name: "fence: console transcript runs its commands, not its output", in: "```console\n$ ls -la\ntotal 0\n$ echo hi\nhi\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"bash", "ls -la\necho hi\n"}, warn: []string{"the $ prompts and the output they show"}},
	{name: "fence: shell-session continuation lines", in: "```shell-session\n$ for i in 1 2; do\n>   echo $i\n> done\n1\n2\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"bash", "for i in 1 2; do\n  echo $i\ndone\n"}},
	{name: "fence: a bash fence whose every command has a prompt", in: "```bash\n$ cd /tmp\n$ ls\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"bash", "cd /tmp\nls\n"}, warn: []string{"and the $ prompts were dropped"}},
	{name: "fence: one prompted command runs without the $", in: "```\n$ ls\n```", kind: KindRecovered, habit: HabitFence, cmd: "ls"},
	{name: "fence: a shell fence mixing prompts and other lines is refused", in: "```sh\n$ ls\nfoo.txt\n```",
		errSub: "line 3 of the fence has no $ prompt", line: 3},
	{name: "fence: a python fence keeps its $", in: "```python\n$ = 1\n```", kind: KindRecovered, habit: HabitFence, argv: []string{"python3", "$ = 1\n"}},
	// A script whose heredoc writes Markdown.
	{name: "fence: a heredoc that writes a fenced block", in: "```bash\ncat > README.md <<'EOF'\n# Title\n```python\nprint(1)\n```\nEOF\nwc -l README.md\n```",
		kind: KindRecovered, habit: HabitFence, argv: []string{"bash", "cat > README.md <<'EOF'\n# Title\n```python\nprint(1)\n```\nEOF\nwc -l README.md\n"}},
	{name: "fence: a python fence with a second fence is still two programs", in: "```python\na = 1\n```\nx\n```",
		errSub: "text after the Markdown fence that closes on line 3", line: 4},
	{name: "fence: a bash fence whose inner fence is code is refused", in: "```bash\nls\n```\necho x\n```",
		errSub: "text after the Markdown fence", line: 4},

	// JSON wrappers: refused, with the program shown when it fits.
	{name: "JSON: {cmd} shows the command", in: `{"cmd":"ls -la"}`,
		errSub: "shell takes the program itself, not JSON: send `ls -la` as the whole input, or a shebang line and the body", line: 1},
	{name: "JSON: pretty-printed argv drops the bash -lc wrapper", in: "{\n  \"command\": [\"bash\", \"-lc\", \"ls\"]\n}\n",
		errSub: "send `ls` as", line: 1},
	{name: "JSON: a multi-line program is named by its member", in: `{"input":"#!/usr/bin/env python3\nprint(1)"}`,
		errSub: `send the text of "input" itself`, line: 1},
	{name: "JSON: after blank lines the line is where it starts", in: "\n\n{\n  \"cmd\": \"git status\"\n}", errSub: "`git status`", line: 3},
	{name: "JSON: an argv array", in: `["ls", "-la"]`, errSub: "send `ls -la`", line: 1},
	{name: "JSON: argv words are quoted", in: `{"cmd":["echo","a b"]}`, errSub: "send `echo 'a b'`", line: 1},
	{name: "JSON: no program member still says what to send", in: `{"tool":"shell","timeout":5}`, errSub: "send the command (e.g. ls -la)", line: 1},

	// apply_patch envelopes and unified diffs: refused, never run.
	{name: "apply_patch: the envelope is refused before *** expands",
		in: "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n", errSub: "apply_patch envelope, which Bash would run", line: 1},
	{name: "apply_patch: after a blank line and indented", in: "\n  *** Begin Patch\n*** Add File: b\n+b\n*** End Patch", errSub: "workspace's own patch tool", line: 2},
	{name: "apply_patch: after a comment", in: "# apply this\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch", errSub: "apply_patch envelope", line: 2},
	{name: "apply_patch: after a BOM", in: "\uFEFF*** Begin Patch\n*** Add File: a\n+x\n*** End Patch", errSub: "apply_patch envelope", line: 1},
	{name: "apply_patch: after prose", in: "Here is the patch:\n*** Begin Patch\n*** End Patch", errSub: "apply_patch envelope", line: 2},
	{name: "diff: a unified diff is refused", in: "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n", errSub: "unified diff", line: 1},
	{name: "diff: a git diff is refused", in: "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n", errSub: "unified diff", line: 1},

	// Blank lines before the header.
	{name: "blank line: the shebang after it selects python3", in: "\n#!/usr/bin/env python3\nprint(1)",
		kind: KindRecovered, habit: HabitBlankLine, argv: []string{"python3", "print(1)"}, retain: -1,
		warn: []string{"the blank line(s) before the header on line 2 were ignored"}},
	{name: "blank line: blanks and several lines before the shebang", in: " \t\n\r\n#!python3\nprint(1)\n",
		kind: KindRecovered, habit: HabitBlankLine, argv: []string{"python3", "print(1)\n"}, warn: []string{"header on line 3"}},
	{name: "blank line: a leading directive after it", in: "\n\n#!params={\"tty\":true}\nls",
		kind: KindRecovered, habit: HabitBlankLine, args: `{"cmd":"shell bash ls","tty":true,"login":false}`},
	{name: "blank line: a diagnostic names the shebang's own line", in: "\n#!/usr/bin/env\nx", errSub: "names no executable", line: 2},

	// Directive near misses: read when the value shows the intent, refused otherwise.
	{name: "near miss: #!cmd without = and with {.} is a template", in: "#!cmd curl -fsSL URL | {.}\nprint(1)",
		kind: KindRecovered, habit: HabitDirective, cmd: "curl -fsSL URL | shell bash 'print(1)'",
		warn: []string{"line 1 was read as the #!cmd= directive"}},
	{name: "near miss: #!cmd: with a colon", in: "#!cmd: cat data | {.}\nls", kind: KindRecovered, habit: HabitDirective,
		cmd: "cat data | shell bash ls"},
	{name: "near miss: #!cmd without {.} is refused, not an interpreter named cmd", in: "#!cmd ls -la\n",
		errSub: "#!cmd= directive spelled wrong", line: 1},
	{name: "near miss: a bare #!cmd is refused", in: "#!cmd", errSub: "#!cmd= directive", line: 1},
	{name: "near miss: !params without # is read", in: "!params {\"workdir\":\"/tmp\"}\nls",
		kind: KindRecovered, habit: HabitDirective, args: `{"cmd":"shell bash ls","workdir":"/tmp","login":false}`},
	{name: "near miss: !params without JSON is refused", in: "!params workdir=/tmp\nls", errSub: "#!params= directive spelled wrong", line: 1},
	{name: "near miss: !params after a shebang", in: "#!python3\n!params {\"tty\":true}\nprint(1)\n",
		kind: KindRecovered, habit: HabitDirective, argv: []string{"python3", "print(1)\n"}, warn: []string{"line 2 was read"}},
	{name: "near miss: #!cmd after a shebang", in: "#!python3\n#!cmd cat in.csv | {.}\nimport sys\n",
		kind: KindRecovered, habit: HabitDirective, cmd: "cat in.csv | shell -e python3 'import sys\\n'"},
	{name: "near miss: # !cmd= comment shape with {.}", in: "# !cmd=curl URL | {.}\nls", kind: KindRecovered, habit: HabitDirective,
		cmd: "curl URL | shell bash ls"},
	{name: "near miss: #!params: with a colon", in: "#!params:{\"tty\":true}\nls", kind: KindRecovered, habit: HabitDirective},
	{name: "near miss: !cmd= without #", in: "!cmd=curl URL | {.}\nls", kind: KindRecovered, habit: HabitDirective,
		cmd: "curl URL | shell bash ls"},
	{name: "near miss: the note never quotes the value", in: "!params {\"env\":{\"TOKEN\":\"s3cret\"}}\nls",
		kind: KindRecovered, habit: HabitDirective, warn: []string{"line 1 was read as the #!params= directive; write directives as #!key=value."}},
}

// lookAlikes are real programs that resemble a habit; no habit rule may
// touch them. They are fuzz seeds too.
var lookAlikes = []string{
	"{ echo a; } > f",
	"{\n  echo a\n  echo b\n} > f\n",
	"{ echo '{\"cmd\":\"ls\"}'; }\n",
	"echo '{\"cmd\":\"ls\"}' | jq .cmd",
	"jq -n '{\"cmd\":\"ls\"}'",
	"cat > x.json <<'EOF'\n{\"cmd\":\"ls\"}\nEOF\n",
	"cat <<'EOF' > README.md\n```python\nprint(1)\n```\nEOF\n",
	"python3 - <<'EOF'\nprint('```')\nEOF\n",
	"printf '*** Begin Patch\\n' > p.txt",
	"printf '%s\\n' '*** Begin Patch' '*** End Patch' | wc -l",
	"[ -f x ]",
	"[ -f x ] && echo yes\n",
	"[[ -d /tmp ]] || mkdir -p /tmp\n",
	"[ \"a\" ]",
	"[ 1 ]",
	"[ ]",
	"echo '```'",
	"echo \"\\`\\`\\`python\"",
	"git diff --stat",
	"diff -u a b",
	"! grep -q x f",
	"#!cmd=curl URL | {.}\nls",
	"#!params {\"tty\":true}\nls",
	"# !params {\"tty\":true}\nls",
	"#!/usr/bin/env cmdtool\nx",
	"# comment\n#!python3\n",
	"# !cmd is how a template starts\nls\n",
	"#!python3\nprint('```python')\nprint('{\"cmd\": \"ls\"}')\n",
	"#!python3\nimport json\nprint(json.dumps({'cmd': 'ls'}))\n",
	"#!/usr/bin/env node\nconsole.log('*** Begin Patch')\n",
	"#!python3\nprint('--- a/x')\nprint('+++ b/x')\n",
	"echo '--- a/x'\necho '+++ b/x'\n",
	"ls\n\n#!python3\n",
	"$(pwd)/run.sh",
	"echo `date`",
	// Issue 35 item 2: look-alikes of what may stand in front of a habit.
	"# list files\nls -la\n",
	"# !cmd is how a template starts\n# and *** Begin Patch starts a patch\nls\n",
	"echo 'Here is the script:'\nls\n",
	"cat > notes.md <<'EOF'\nRun this:\n```bash\nls\n```\nEOF\n",
	"printf '%s\\n' '```' 'x' '```' > f.md\n",
	"echo '\n```python\nprint(1)\n```\n' > f.md\n",
	"# heading\ncat <<EOF\n~~~\ncode\n~~~\nEOF\n",
	"echo ~~~\n",
	"x=~; echo $x\n",
	"echo $ ls\n",
	"$HOME/bin/run\n",
	"> out.txt\n",
	"#!python3\nprint('$ ls')\nprint('```')\n",
	"\uFEFF# comment\nls\n",
}

func TestTranslateHabits(t *testing.T) {
	runTable(t, habitCases)
}

func TestTranslateLookAlikesAreUntouched(t *testing.T) {
	for _, in := range lookAlikes {
		p, err := Translate(in, Options{})
		if err != nil {
			t.Errorf("Translate(%q) rejected a real program: %v", in, err)
			continue
		}
		if p.Kind == KindRecovered || p.Habit != HabitNone {
			t.Errorf("Translate(%q) = %s/%s; a real program must run as written", in, p.Kind, p.Habit)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w, "fence") || strings.Contains(w, "JSON") || strings.Contains(w, "was read as") {
				t.Errorf("Translate(%q) warns %q", in, w)
			}
		}
		if h, _ := shellForeignSyntax(in); h != HabitNone {
			t.Errorf("shellForeignSyntax(%q) = %s", in, h)
		}
	}
	if n := len(habitCases) + len(lookAlikes); n < 40 {
		t.Fatalf("the corpus holds %d cases; issue 25 asks for at least 40", n)
	}
}

func TestForeignSyntax(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Habit
		line int
	}{
		{"```python\nx\n```", HabitFence, 1},
		{"\n\n```", HabitFence, 3},
		{`{"cmd":"ls"}`, HabitJSON, 1},
		{"[1]", HabitJSON, 1},
		{"[ \"bash\", \"-lc\", \"ls\" ]", HabitJSON, 1},
		{"[\n  \"ls\"\n]", HabitJSON, 1},
		{"[ \"ls\" ]", HabitNone, 0}, // Bash's test command with one operand
		{"{}", HabitJSON, 1},
		{"{\"cmd\":", HabitNone, 0}, // not JSON: Bash reads it, and says what is wrong
		{"*** Begin Patch", HabitApplyPatch, 1},
		{"--- a\n+++ b\n", HabitDiff, 1},
		{"--- a\nb\n", HabitNone, 0},
		{"diff --git a/x b/x\n", HabitDiff, 1},
		{"", HabitNone, 0},
		{" \n\t\n", HabitNone, 0},
		{"in @shell/x\ntype 1:abcd \"x\"\n", HabitNone, 0},
	} {
		if got, line := ForeignSyntax(c.in); got != c.want || line != c.line {
			t.Errorf("ForeignSyntax(%q) = %q line %d, want %q line %d", c.in, got, line, c.want, c.line)
		}
	}
}

// TestRecoveredCarrierRunsTheProgram: a recovered fence's carrier calls
// exec_command with the program, not the fenced text, and prints the note
// first; the model's input is never in it as written.
func TestRecoveredCarrierRunsTheProgram(t *testing.T) {
	p, err := Translate("```python\nprint(1)\n```", Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Carrier(Retention{})
	if !strings.HasPrefix(c, "const result = await tools.exec_command(") || strings.Contains(c, "```python") {
		t.Fatalf("carrier = %s", c)
	}
	if !p.RunsWorker() {
		t.Fatal("a recovered worker plan must say it runs the worker, so the router prepares the runtime")
	}
	if i, j := strings.Index(c, "Markdown fence"), strings.Index(c, "text(result"); i < 0 || i > j {
		t.Fatalf("the note must be printed before the result: %s", c)
	}
}

// startsWithMarker is the README's list of what the habit rules look at,
// written out independently of the rules: the first non-blank line starts
// with ```, *** Begin Patch, diff --git, "--- ", #!, or a directive
// without its # (!cmd, !params, # !cmd, # !params); or the input is one
// JSON object or array.
func startsWithMarker(in string) bool {
	lines := strings.FieldsFunc(in, func(r rune) bool { return r == '\n' || r == '\r' })
	// Issue 35 item 2: a fence or an envelope may also stand behind a
	// comment, prose or a BOM, and a fence line among code is one too
	// (left alone only inside a heredoc or a quoted string).
	for _, l := range lines {
		l = strings.Trim(strings.TrimPrefix(l, "\uFEFF"), " \t")
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") || strings.HasPrefix(l, "*** Begin Patch") {
			return true
		}
	}
	first := ""
	for _, l := range lines {
		if t := strings.Trim(l, " \t"); t != "" {
			first = t
			break
		}
	}
	if c := strings.TrimLeft(first, "#"); len(c) < len(first) && len(first)-len(c) == 1 {
		if d := strings.TrimLeft(c, " \t"); len(d) < len(c) {
			c = d
		}
		if strings.HasPrefix(c, "!cmd") || strings.HasPrefix(c, "!params") {
			return true
		}
	}
	for _, m := range []string{"```", "*** Begin Patch", "diff --git ", "--- ", "#!", "!cmd", "!params"} {
		if strings.HasPrefix(first, m) {
			return true
		}
	}
	t := strings.Trim(in, " \t\r\n")
	return (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t))
}

// FuzzHabitsLeaveBashAlone: real Bash that mvdan/sh parses and that
// starts with none of the markers is never refused or recovered by a habit
// rule (issue 25 item 3).
func FuzzHabitsLeaveBashAlone(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		if startsWithMarker(in) {
			return
		}
		if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(in), ""); err != nil {
			return
		}
		p, err := Translate(in, Options{})
		if d, ok := err.(*Diagnostic); ok && d.Habit != HabitNone {
			t.Fatalf("Bash %q refused as %s: %v", in, d.Habit, err)
		}
		if err == nil && p.Habit != HabitNone && p.Habit != HabitJavaScript {
			t.Fatalf("Bash %q recovered as %s", in, p.Habit)
		}
	})
}
