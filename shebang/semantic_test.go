package shebang

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/shebang/oneline"
)

// The semantic tests prove quoting by execution: each rendered cmd runs
// through `SHELL -c`, as Codex runs it, under every POSIX shell Codex may
// pick from a passwd entry (bash, zsh — also with RC_QUOTES — dash and
// sh), in the C and a UTF-8 locale. The `shell` first on PATH is a stub
// (internal/argvstub) that decodes its argv with oneline.ParseArgs, the
// helper's own decoding, and records the result framed; the recorded argv
// must equal Plan.Argv byte for byte.

// stubRecordEnv names the file the stub writes.
const stubRecordEnv = "HPATCH_SHEBANG_STUB_RECORD"

// argvStub builds internal/argvstub once per test binary (without -race:
// it starts once per command, many hundred times) into a directory
// TestMain removes.
var argvStub struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if argvStub.dir != "" {
		os.RemoveAll(argvStub.dir)
	}
	os.Exit(code)
}

func buildArgvStub(t *testing.T) string {
	t.Helper()
	argvStub.once.Do(func() {
		if argvStub.dir, argvStub.err = os.MkdirTemp("", "hpatch-argvstub-"); argvStub.err != nil {
			return
		}
		argvStub.path = filepath.Join(argvStub.dir, "argvstub")
		argvStub.err = testenv.Build(argvStub.path, "hpatch-router/shebang/internal/argvstub")
	})
	if argvStub.err != nil {
		t.Fatal(argvStub.err)
	}
	return argvStub.path
}

func readRecord(t *testing.T, path string) ([]string, bool) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	if msg, ok := strings.CutPrefix(string(raw), "error: "); ok {
		return []string{"the helper's decoding refused the command: " + msg}, true
	}
	var out []string
	for s := string(raw); s != ""; {
		n, rest, ok := strings.Cut(s, ":")
		size, err := strconv.Atoi(n)
		if !ok || err != nil || size > len(rest) || rest[size:][:1] != "," {
			t.Fatalf("stub record %s is malformed: %.200q", path, raw)
		}
		out = append(out, rest[:size])
		s = rest[size+1:]
	}
	return out, true
}

// loginShell is one way Codex may run a cmd: the shell's path and the
// arguments before -c.
type loginShell struct {
	name string
	argv []string
}

// loginShells are the shells the proof runs under. bash, zsh, dash and sh
// must be installed (testenv.NeedTool: a missing one skips locally and
// fails under CI=true); sh is whatever /bin/sh is here (dash on Debian);
// ksh, mksh, yash and posh join when installed.
func loginShells(t *testing.T) []loginShell {
	t.Helper()
	var out []loginShell
	for _, n := range []string{"bash", "zsh", "dash", "sh", "ksh", "mksh", "yash", "posh"} {
		var p string
		switch n {
		case "bash", "zsh", "dash", "sh":
			p = testenv.NeedTool(t, n)
		default:
			var err error
			if p, err = exec.LookPath(n); err != nil {
				continue
			}
		}
		out = append(out, loginShell{n, []string{p}})
		if n == "zsh" {
			out = append(out, loginShell{"zsh -o rcquotes", []string{p, "-o", "rcquotes"}})
		}
	}
	return out
}

// stubDir puts the argv stub into a fresh directory as `shell` (and any
// extra names) and returns the directory.
func stubDir(t *testing.T, names ...string) string {
	t.Helper()
	self := buildArgvStub(t)
	dir := t.TempDir()
	for _, n := range append([]string{"shell"}, names...) {
		if err := os.Symlink(self, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// chunkLimit keeps one batch under Linux's 128 KiB bound on one argv
// string: the batch is itself the -c argument.
const chunkLimit = 120 * 1024

// runAll runs every cmd through sh -c, many one-line commands per -c
// script with a record file each, and returns what the stub recorded for
// each (nil when it did not run). A command that is not one complete
// physical line would swallow its successors, which then record nothing.
func runAll(t *testing.T, sh loginShell, dir string, cmds []string, locale string) [][]string {
	t.Helper()
	got := make([][]string, len(cmds))
	for start := 0; start < len(cmds); {
		var script strings.Builder
		end := start
		for end < len(cmds) && (end == start || script.Len()+len(cmds[end]) < chunkLimit) {
			rec := filepath.Join(dir, "rec"+strconv.Itoa(end))
			os.Remove(rec)
			script.WriteString("export " + stubRecordEnv + "=" + oneline.Quote(rec) + "\n" + cmds[end] + "\n")
			end++
		}
		c := exec.Command(sh.argv[0], append(sh.argv[1:], "-c", script.String())...)
		c.Env = []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "LC_ALL=" + locale, "HOME=" + dir}
		c.Stdin = strings.NewReader("")
		if out, err := c.CombinedOutput(); err != nil && len(out) > 0 {
			t.Logf("%s -c (commands %d..%d): %v\n%.2000s", sh.name, start, end-1, err, out)
		}
		for i := start; i < end; i++ {
			if argv, ok := readRecord(t, filepath.Join(dir, "rec"+strconv.Itoa(i))); ok {
				got[i] = argv
			}
		}
		start = end
	}
	return got
}

// proveArgv runs every plan's cmd under every shell and locale and
// compares the decoded argv with Plan.Argv.
func proveArgv(t *testing.T, plans []*Plan, names []string) {
	t.Helper()
	dir := stubDir(t)
	cmds := make([]string, len(plans))
	for i, p := range plans {
		cmds[i] = p.Cmd
		if strings.ContainsAny(p.Cmd, "\r\n") || !oneline.Showable(p.Cmd) {
			t.Fatalf("%s: cmd is not one showable physical line: %.200q", names[i], p.Cmd)
		}
	}
	for _, sh := range loginShells(t) {
		for _, locale := range []string{"C", "C.UTF-8"} {
			for i, got := range runAll(t, sh, dir, cmds, locale) {
				if !slices.Equal(got, plans[i].Argv) {
					t.Errorf("%s, %s -c, LC_ALL=%s: stub argv %.200q, want %.200q (cmd %.200q)", names[i], sh.name, locale, got, plans[i].Argv, plans[i].Cmd)
				}
			}
		}
	}
}

func semanticBodies() map[string]string {
	var big strings.Builder
	for i := 0; big.Len() < 100*1024; i++ {
		big.WriteString("    print(\"it's $HOME !x `y` é 😀\")  # \\ x\t\n")
		if i%40 == 0 {
			big.WriteString("\x01\u200b\r\n")
		}
	}
	return map[string]string{
		"single quotes":           "print('a')\nprint('it''s')\n",
		"quote at both ends":      "'a'",
		"two quotes":              "''",
		"double quotes":           `echo "a \"b\" c"` + "\n",
		"backslashes":             "a\\b\\\\c\\n\\t\\'\n",
		"escape-like text":        `\x41\n\\x\r` + "\\",
		"dollar and parameters":   "echo $HOME ${x:-y} $(id) `id` $'\\n'\n",
		"history bang":            "echo !! !$ !-1 'x!'\n",
		"tabs":                    "\tindented\t\ttabs\t\n",
		"carriage returns":        "a\r\nb\rc\r",
		"non-ASCII":               "print('héllo wörld — ✓ 😀 中文')\n",
		"non-ASCII one line":      "print('héllo — ✓ 😀 中文 ÿ')",
		"invisible runes":         "a\u200bb\u2028c\u00adD\ufeff\u202e\u0085\u00a0\n",
		"control bytes":           "\x01\x07\x1b[0m\x7f\n",
		"one line with quote":     "it's one line",
		"tilde and equals":        "~root =ls a=~ *",
		"double-quoted fallback":  "it's !x !! $y `z` \\ \"q\"",
		"no final terminator":     "x = 1",
		"only whitespace":         " \t \n ",
		"empty":                   "",
		"hex after escape":        "\x01abc\x1bfe",
		"keyword alone":           "if",
		"leading dash":            "-c",
		"option-like":             "-e",
		"bare word":               "ls",
		"100 KB python-like body": big.String(),
	}
}

func TestSemanticWorkerArgvByteExact(t *testing.T) {
	var plans []*Plan
	var names []string
	for name, body := range semanticBodies() {
		for _, shebang := range []string{"#!python3\n", "#!/usr/bin/env -S python3 -u\n", "#!bash\n", "#!sh\n", "#!/opt/py 3/python3\n"} {
			in := shebang + body
			p, err := Translate(in, Options{})
			if err != nil {
				if shebang == "#!sh\n" {
					continue // Bash-only syntax in some bodies; proven elsewhere
				}
				t.Fatalf("%s: Translate(%.80q): %v", name, in, err)
			}
			if p.Argv[len(p.Argv)-1] != body {
				t.Fatalf("%s: argv lost the body: %.200q", name, p.Argv)
			}
			plans = append(plans, p)
			names = append(names, name+" ("+strings.TrimSpace(shebang)+")")
		}
	}
	proveArgv(t, plans, names)
}

func TestSemanticTemplateArgvByteExact(t *testing.T) {
	var plans []*Plan
	var names []string
	for name, body := range semanticBodies() {
		in := "#!python3\n#!cmd=printf 'data' | {.} | cat\n" + body
		p, err := Translate(in, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plans = append(plans, p)
		names = append(names, "template "+name)
	}
	proveArgv(t, plans, names)
}

// TestSemanticDirectKeepsCommand proves the direct command runs exactly as
// the model's line would: same argv as running the input itself. Direct
// commands are the model's Bash and run under bash (pinned).
func TestSemanticDirectKeepsCommand(t *testing.T) {
	dir := stubDir(t, "rtk")
	bash := []loginShell{{"bash", []string{testenv.NeedTool(t, "bash")}}}
	for _, in := range []string{
		"rtk shadowtree test . -run='^$'\n",
		"rtk a\\ b \"c d\" 'e  f' $'g\\th'\r\n",
		"rtk x=1 --flag=\"$HOME\"",
	} {
		p, err := Translate(in, Options{})
		if err != nil || p.Kind != KindDirect {
			t.Fatalf("Translate(%q) = %+v, %v; want direct", in, p, err)
		}
		got := runAll(t, bash[0], dir, []string{strings.TrimRight(in, "\r\n"), p.Cmd}, "C")
		if got[0] == nil || !slices.Equal(got[1], got[0]) {
			t.Errorf("direct %q: argv %q, want %q", in, got[1], got[0])
		}
	}
}

// TestSemanticRandomBodies runs random bodies drawn from the bytes that
// quoting must get right.
func TestSemanticRandomBodies(t *testing.T) {
	alphabet := []string{"'", "''", "\"", "\\", "\\n", "\\x4", "$", "!", "`", "\t", "\r", "\n", "\r\n", " ", "a", "x", "é", "😀", "\u200b", "\x01", "\x7f", "{", "}", "*", "#", "~", "=", "0", "f", "-e"}
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	var plans []*Plan
	var names []string
	for i := 0; i < 100; i++ {
		b.Reset()
		for n := r.IntN(40); n >= 0; n-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		body := "b" + b.String() // a body line starting with #! would be a directive
		p, err := Translate("#!node\n"+body, Options{})
		if err != nil {
			t.Fatalf("Translate(%q): %v", body, err)
		}
		plans = append(plans, p)
		names = append(names, strconv.Quote(body))
	}
	proveArgv(t, plans, names)
}
