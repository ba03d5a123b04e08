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
	"testing"

	"hpatch-router/internal/testenv"
)

// The semantic tests prove quoting by execution: each rendered cmd runs
// through `bash -c` with a stub `shell` first on PATH that records its argv
// NUL-separated, and the recorded argv must equal Plan.Argv byte for byte.

// stubDir writes recording stubs named shell (and any extra names) into a
// temporary directory and returns it with the record file's path.
func stubDir(t *testing.T, names ...string) (dir, record string) {
	t.Helper()
	testenv.NeedTool(t, "bash")
	dir = t.TempDir()
	record = filepath.Join(dir, "argv.bin")
	// /bin/sh starts faster than bash; printf %s copies bytes exactly.
	stub := "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$STUB_RECORD\"\n"
	for _, n := range append([]string{"shell"}, names...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, record
}

// runRecorded runs cmd with bash -c and returns the argv the stub saw.
func runRecorded(t *testing.T, dir, record, cmd, locale string) []string {
	t.Helper()
	os.Remove(record)
	c := exec.Command("bash", "-c", cmd)
	c.Env = []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "STUB_RECORD=" + record, "LC_ALL=" + locale}
	c.Stdin = strings.NewReader("")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("bash -c %.200q: %v\n%s", cmd, err, out)
	}
	raw, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("stub did not run for %.200q: %v", cmd, err)
	}
	return strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
}

// runBatch runs many one-line commands in one bash script, each with its
// own record file, and returns what the stub saw for each. It is the same
// proof as runRecorded for one-physical-line commands at a fraction of the
// process starts; a command that is not one complete line would swallow its
// successors and fail the comparison.
func runBatch(t *testing.T, dir string, cmds []string, locale string) [][]string {
	t.Helper()
	var script strings.Builder
	for i, c := range cmds {
		script.WriteString("export STUB_RECORD=" + filepath.Join(dir, "rec"+strconv.Itoa(i)) + "\n")
		script.WriteString(c + "\n")
	}
	file := filepath.Join(dir, "batch.sh")
	if err := os.WriteFile(file, []byte(script.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	c := exec.Command("bash", file)
	c.Env = []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "LC_ALL=" + locale}
	c.Stdin = strings.NewReader("")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("bash batch: %v\n%s", err, out)
	}
	got := make([][]string, len(cmds))
	for i := range cmds {
		raw, err := os.ReadFile(filepath.Join(dir, "rec"+strconv.Itoa(i)))
		if err != nil {
			t.Fatalf("stub did not run for command %d %.200q: %v", i, cmds[i], err)
		}
		got[i] = strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	}
	return got
}

func semanticBodies() map[string]string {
	var big strings.Builder
	for big.Len() < 100*1024 {
		big.WriteString("    print('it''s \"q\" \\\\ $HOME !x `y` é 😀')\t\n")
	}
	return map[string]string{
		"single quotes":           "print('a')\nprint('it''s')\n",
		"double quotes":           `echo "a \"b\" c"` + "\n",
		"backslashes":             "a\\b\\\\c\\n\\t\\'\n",
		"dollar and parameters":   "echo $HOME ${x:-y} $(id) `id` $'\\n'\n",
		"history bang":            "echo !! !$ !-1 'x!'\n",
		"tabs":                    "\tindented\t\ttabs\t\n",
		"carriage returns":        "a\r\nb\rc\r",
		"non-ASCII":               "print('héllo wörld — ✓ 😀 中文')\n",
		"invisible runes":         "a\u200bb\u2028c\u00adD\ufeff\n",
		"control bytes":           "\x01\x07\x1b[0m\x7f\n",
		"one line with quote":     "it's one line",
		"double-quoted fallback":  "it's !x !! $y `z` \\ \"q\"",
		"no final terminator":     "x = 1",
		"only whitespace":         " \t \n ",
		"empty":                   "",
		"hex after escape":        "\x01abc\x1bfe",
		"keyword alone":           "if",
		"leading dash":            "-c",
		"100 KB python-like body": big.String(),
	}
}

func TestSemanticWorkerArgvByteExact(t *testing.T) {
	dir, record := stubDir(t)
	var plans []*Plan
	var names []string
	for name, body := range semanticBodies() {
		for _, shebang := range []string{"#!python3\n", "#!/usr/bin/env -S python3 -u\n", "#!bash\n", "#!sh\n"} {
			in := shebang + body
			p, err := Translate(in, Options{})
			if err != nil {
				if shebang == "#!sh\n" {
					continue // Bash-only syntax in some bodies; proven elsewhere
				}
				t.Fatalf("%s: Translate(%.80q): %v", name, in, err)
			}
			if strings.ContainsAny(p.Cmd, "\r\n") || p.Argv[len(p.Argv)-1] != body {
				t.Fatalf("%s: cmd is not one physical line or argv lost the body: %.200q", name, p.Cmd)
			}
			plans = append(plans, p)
			names = append(names, name+" ("+strings.TrimSpace(shebang)+")")
		}
	}
	// Each cmd runs alone through bash -c, as Codex runs it. $'\uXXXX'
	// would expand only in a UTF-8 locale, so non-ASCII bodies run in both.
	for i, p := range plans {
		locales := []string{"C"}
		if strings.ContainsFunc(p.Body, func(r rune) bool { return r >= 0x80 }) {
			locales = append(locales, "C.UTF-8")
		}
		for _, locale := range locales {
			if got := runRecorded(t, dir, record, p.Cmd, locale); !slices.Equal(got, p.Argv) {
				t.Errorf("%s, LC_ALL=%s: stub argv %.200q, want %.200q", names[i], locale, got, p.Argv)
			}
		}
	}
}

func TestSemanticTemplateArgvByteExact(t *testing.T) {
	dir, record := stubDir(t)
	for name, body := range semanticBodies() {
		in := "#!python3\n#!cmd=printf 'data' | {.} | cat\n" + body
		p, err := Translate(in, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := runRecorded(t, dir, record, p.Cmd, "C"); !slices.Equal(got, p.Argv) {
			t.Errorf("%s: template stub argv %.200q, want %.200q", name, got, p.Argv)
		}
	}
}

// TestSemanticDirectKeepsCommand proves the direct command runs exactly as
// the model's line would: same argv as running the input itself.
func TestSemanticDirectKeepsCommand(t *testing.T) {
	dir, record := stubDir(t, "rtk")
	for _, in := range []string{
		"rtk shadowtree test . -run='^$'\n",
		"rtk a\\ b \"c d\" 'e  f' $'g\\th'\r\n",
		"rtk x=1 --flag=\"$STUB_RECORD\"",
	} {
		p, err := Translate(in, Options{})
		if err != nil || p.Kind != KindDirect {
			t.Fatalf("Translate(%q) = %+v, %v; want direct", in, p, err)
		}
		want := runRecorded(t, dir, record, chompTerminator(in), "C")
		if got := runRecorded(t, dir, record, p.Cmd, "C"); !slices.Equal(got, want) {
			t.Errorf("direct %q: argv %q, want %q", in, got, want)
		}
	}
}

// TestSemanticRandomBodies runs random bodies drawn from the bytes that
// quoting must get right.
func TestSemanticRandomBodies(t *testing.T) {
	dir, _ := stubDir(t)
	alphabet := []string{"'", "\"", "\\", "$", "!", "`", "\t", "\r", "\n", "\r\n", " ", "a", "x", "é", "😀", "\u200b", "\x01", "{", "}", "*", "#", "~", "=", "0", "f"}
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	var plans []*Plan
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
	}
	cmds := make([]string, len(plans))
	for i, p := range plans {
		cmds[i] = p.Cmd
	}
	for i, got := range runBatch(t, dir, cmds, "C") {
		if !slices.Equal(got, plans[i].Argv) {
			t.Errorf("random body %q: stub argv %q, want %q", plans[i].Body, got, plans[i].Argv)
		}
	}
}
