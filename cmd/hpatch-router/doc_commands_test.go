package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
)

// docRunners says which test runs the `$ …` commands of each section of
// README.md and docs/*.md that has any. A command block is fenced
// ```console; other blocks name what they hold (text, toml).
var docRunners = []struct {
	file, heading, runner string
}{
	{"README.md", "## Set up", "TestREADMEQuickStart"}, // make run; make test is what .ci/run runs
	{"README.md", "## Quick start", "TestREADMEQuickStart"},
	{"docs/shell-tool.md", "### See a translation", "TestREADMETranslateExamples"},
	{"docs/operations.md", "## Install", "TestDocsStagedInstall"},
}

// TestDocsCommandsAreRun: every fenced block of README.md and docs/*.md
// names its content; every `$ command` is in a section docRunners gives to
// a test that exists (each runner runs all of its section's commands and
// fails on one it cannot). `make test`, the one command no test can run
// inside itself, must be what .ci/run runs.
func TestDocsCommandsAreRun(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "..", "README.md"))
	tests := testSources(t)
	for _, f := range files {
		rel, _ := filepath.Rel(filepath.Join("..", ".."), f)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		heading, inBlock, lang := "", false, ""
		for i, line := range strings.Split(string(b), "\n") {
			trimmed := strings.TrimLeft(line, " ")
			switch {
			case !inBlock && strings.HasPrefix(line, "#"):
				heading = line
			case strings.HasPrefix(trimmed, "```"):
				inBlock = !inBlock
				lang = strings.TrimPrefix(trimmed, "```")
				if inBlock && lang == "" {
					t.Errorf("%s:%d: a fenced block without a language: console for commands, else what it holds", rel, i+1)
				}
				if inBlock && (lang == "sh" || lang == "bash" || lang == "shell") {
					t.Errorf("%s:%d: commands are fenced ```console with a `$ ` prompt, so a test finds them", rel, i+1)
				}
			case inBlock && lang == "console" && strings.HasPrefix(trimmed, "$ "):
				cmd := strings.TrimPrefix(trimmed, "$ ")
				runner := ""
				for _, r := range docRunners {
					if r.file == rel && strings.HasPrefix(heading, r.heading) {
						runner = r.runner
					}
				}
				switch {
				case cmd == "make test":
					ci, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
					if err != nil || !regexp.MustCompile(`(?m)^make test$`).Match(ci) {
						t.Errorf("%s:%d: `make test` is shown but .ci/run does not run it", rel, i+1)
					}
				case runner == "":
					t.Errorf("%s:%d: no test runs `%s` (section %q): add the section and its runner to docRunners", rel, i+1, cmd, heading)
				case !strings.Contains(tests, "func "+runner+"(t *testing.T)"):
					t.Errorf("%s:%d: runner %s does not exist", rel, i+1, runner)
				}
			}
		}
	}
}

// testSources is the text of this package's test files.
func testSources(t *testing.T) string {
	t.Helper()
	names, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, n := range names {
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
	}
	return b.String()
}

// matchShown compares a command's output with what a document shows
// under it: line by line, where a line that is only "…" stands for any
// number of lines and "…" inside a line for any text.
func matchShown(shown, got string) error {
	want := strings.Split(strings.TrimSuffix(shown, "\n"), "\n")
	have := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if shown == "" {
		want = nil
	}
	if got == "" {
		have = nil
	}
	if matchLines(want, have) {
		return nil
	}
	return fmt.Errorf("the document shows\n%s\nbut the command printed\n%s", shown, got)
}

func matchLines(want, have []string) bool {
	if len(want) == 0 {
		return len(have) == 0
	}
	if want[0] == "…" {
		for i := 0; i <= len(have); i++ {
			if matchLines(want[1:], have[i:]) {
				return true
			}
		}
		return false
	}
	if len(have) == 0 {
		return false
	}
	parts := strings.Split(want[0], "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	if !regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(have[0]) {
		return false
	}
	return matchLines(want[1:], have[1:])
}

func TestMatchShown(t *testing.T) {
	for _, tc := range []struct {
		shown, got string
		ok         bool
	}{
		{"a\nb\n", "a\nb\n", true},
		{"a\n…\nc\n", "a\nx\ny\nc\n", true},
		{"a\n…\nc\n", "a\nc\n", true},
		{"time=… level=INFO x\n", "time=2026 level=INFO x\n", true},
		{"a\nb\n", "a\nc\n", false},
		{"a\n", "a\nb\n", false},
		{"…\n", "", true},
		{"x.y\n", "xzy\n", false}, // not a regular expression
	} {
		if err := matchShown(tc.shown, tc.got); (err == nil) != tc.ok {
			t.Errorf("matchShown(%q, %q) = %v, want ok=%v", tc.shown, tc.got, err, tc.ok)
		}
	}
}

// TestDocsStagedInstall runs the staged install of docs/operations.md's
// Install section with $PWD standing for a temporary directory (the
// command writes there), and checks what it prints and installs.
func TestDocsStagedInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries through make")
	}
	testenv.NeedTool(t, "make")
	pwd := t.TempDir()
	examples := readmeExamples(docSection(t, "docs/operations.md", "## Install"))
	if len(examples) == 0 {
		t.Fatal("no commands in docs/operations.md's Install section")
	}
	for _, ex := range examples {
		args, ok := strings.CutPrefix(ex.cmd, "make install ")
		if !ok {
			t.Fatalf("not a command this test runs: %s", ex.cmd)
		}
		cmd := exec.Command("make", append([]string{"-s", "-C", repoPath(t), "install"}, strings.Fields(strings.ReplaceAll(args, "$PWD", pwd))...)...)
		cmd.Env = append(testenv.FreshHome(t).Environ(os.Environ()), goEnvVars(t, "GOCACHE", "GOMODCACHE", "GOPATH")...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", ex.cmd, err, out)
		}
		if err := matchShown(strings.ReplaceAll(ex.want, "$PWD", pwd), string(out)); err != nil {
			t.Errorf("%s: %v", ex.cmd, err)
		}
		for _, name := range []string{"hpatch-router", "shell"} {
			st, err := os.Stat(filepath.Join(pwd, "pkgroot", "usr", "bin", name))
			if err != nil || st.Mode().Perm() != 0o755 {
				t.Errorf("%s: %s not installed 0755 (%v)", ex.cmd, name, err)
			}
		}
	}
}

// TestDocsInlineCommands: each `hpatch-router …` written inline in README
// and docs names a real subcommand with flags it has (from its --help);
// those that only print (codex-config, --version) are run and must exit 0.
func TestDocsInlineCommands(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "..", "README.md"))
	span := regexp.MustCompile("`hpatch-router ([^`]*)`")
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range span.FindAllStringSubmatch(string(b), -1) {
			args := strings.Fields(m[1])
			if len(args) == 0 || strings.Contains(m[1], "<") {
				continue // a pattern (`hpatch-router <subcommand> --help`), not a command
			}
			seen++
			var out, errb strings.Builder
			if args[0] == "codex-config" || args[0] == "--version" {
				if code := dispatch(context.Background(), args, stdio{strings.NewReader(""), &out, &errb}); code != 0 {
					t.Errorf("%s: `hpatch-router %s` exits %d: %s", f, m[1], code, errb.String())
				}
				continue
			}
			if code := dispatch(context.Background(), []string{args[0], "--help"}, stdio{strings.NewReader(""), &out, &errb}); code != 0 {
				t.Errorf("%s: `hpatch-router %s`: no subcommand %q (exit %d)", f, m[1], args[0], code)
				continue
			}
			for _, a := range args[1:] {
				name, _, _ := strings.Cut(a, "=")
				if strings.HasPrefix(name, "--") && !strings.Contains(out.String(), name+" ") {
					t.Errorf("%s: `hpatch-router %s`: %s has no flag %s", f, m[1], args[0], name)
				}
			}
		}
	}
	if seen < 5 {
		t.Fatalf("found %d inline hpatch-router commands; the pattern is broken", seen)
	}
}
