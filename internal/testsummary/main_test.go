package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
)

// stream renders events as `go test -json` lines.
func stream(t *testing.T, events ...event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func out(pkg, test, text string) event {
	return event{Action: "output", Package: pkg, Test: test, Output: text}
}

func TestSummary(t *testing.T) {
	const p, q = "hpatch-router/cmd/hpatch-router", "hpatch-router/retain"
	missing := func(pkg, test, tool string) []event {
		return []event{
			{Action: "run", Package: pkg, Test: test},
			out(pkg, test, "=== RUN   "+test+"\n"),
			out(pkg, test, "    e2e_test.go:131: "+testenv.SkipPrefix+tool+"): the detail; under CI=true this fails\n"),
			out(pkg, test, "--- SKIP: "+test+" (0.00s)\n"),
			{Action: "skip", Package: pkg, Test: test},
		}
	}
	for _, tc := range []struct {
		name   string
		events []event
		raw    string // lines before the events
		want   []string
		absent []string
		code   int
	}{
		{"all pass, nothing skipped", []event{
			{Action: "start", Package: q},
			{Action: "run", Package: q, Test: "TestA"}, out(q, "TestA", "=== RUN   TestA\nnoise\n"), {Action: "pass", Package: q, Test: "TestA"},
			out(q, "", "PASS\n"), out(q, "", "ok  \thpatch-router/retain\t0.1s\n"), {Action: "pass", Package: q},
		}, "", []string{"ok  \thpatch-router/retain\t0.1s\n", "skipped: none\n"}, []string{"noise", "PASS\n"}, 0},
		{"skips grouped by the tool", append(append(append(append([]event{{Action: "start", Package: p}, {Action: "start", Package: q}},
			missing(p, "TestE2E", "Codex")...), missing(p, "TestE2EZstdPassthrough", "Codex 0.171.0")...), missing(q, "TestGrammarLark", "python3-lark")...),
			out(p, "TestShort", "    x_test.go:9: e2e: skipped with -short\n"), event{Action: "skip", Package: p, Test: "TestShort"},
			event{Action: "pass", Package: p}, event{Action: "pass", Package: q}),
			"", []string{
				"4 skipped tests",
				"skipped (needs Codex): 1\n  cmd/hpatch-router: TestE2E\n",
				"skipped (needs Codex 0.171.0): 1\n  cmd/hpatch-router: TestE2EZstdPassthrough\n",
				"skipped (needs python3-lark): 1\n  retain: TestGrammarLark\n",
				"skipped: e2e: skipped with -short: 1\n  cmd/hpatch-router: TestShort\n",
			}, nil, 0},
		{"a failed test prints its output", []event{
			{Action: "start", Package: q},
			out(q, "TestB", "=== RUN   TestB\n    b_test.go:3: want 1, got 2\n--- FAIL: TestB (0.00s)\n"), {Action: "fail", Package: q, Test: "TestB"},
			out(q, "", "FAIL\thpatch-router/retain\t0.2s\n"), {Action: "fail", Package: q},
		}, "", []string{"b_test.go:3: want 1, got 2", "FAIL\thpatch-router/retain"}, nil, 1},
		{"a build failure", []event{
			{Action: "build-output", ImportPath: "hpatch-router/retain [hpatch-router/retain.test]", Output: "retain/x.go:1:1: syntax error\n"},
			{Action: "build-fail", ImportPath: "hpatch-router/retain [hpatch-router/retain.test]"},
		}, "", []string{"retain/x.go:1:1: syntax error\n"}, nil, 1},
		{"a package cut off", []event{{Action: "start", Package: q}}, "", []string{"FAIL\thpatch-router/retain: the test stream ended"}, nil, 1},
		{"text around the stream passes through", nil, "# hpatch-router/x\nvet: something\n", []string{"vet: something\n"}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			code := run(strings.NewReader(tc.raw+stream(t, tc.events...)), &b)
			got := b.String()
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("output has %q:\n%s", a, got)
				}
			}
		})
	}
}

func FuzzSummary(f *testing.F) {
	f.Add(`{"Action":"output","Package":"p","Test":"T","Output":"    a.go:1: skipped (needs X): y\n"}` + "\n" + `{"Action":"skip","Package":"p","Test":"T"}`)
	f.Add("plain text\n{\"Action\":\"start\",\"Package\":\"p\"}\n")
	f.Fuzz(func(t *testing.T, in string) {
		var b strings.Builder
		if code := run(strings.NewReader(in), &b); code != 0 && code != 1 {
			t.Fatalf("exit %d", code)
		}
		if !strings.Contains(b.String(), "skipped") {
			t.Fatalf("no skip block:\n%s", b.String())
		}
	})
}

// TestMakeTestNamesCodex (issue 37): `make test` on a machine without
// Codex (HPATCH_CODEX_BIN set and empty stands for one) ends with the
// skip block naming Codex, and still passes.
func TestMakeTestNamesCodex(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make test-only, which builds the router's tests with -race")
	}
	testenv.NeedTool(t, "make")
	testenv.NeedTool(t, "bash")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "-C", root, "test-only", "PKGS=./cmd/hpatch-router", "TESTFLAGS=-run ^TestE2E$$") // $$: make expands the value once
	cmd.Env = append(os.Environ(), "HPATCH_CODEX_BIN=", "CI=")
	b, err := cmd.CombinedOutput()
	got := string(b)
	if err != nil {
		t.Fatalf("make test-only: %v\n%s", err, got)
	}
	for _, w := range []string{"ok  \thpatch-router/cmd/hpatch-router", "1 skipped tests", "skipped (needs Codex): 1\n  cmd/hpatch-router: TestE2E\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("make test-only without Codex lacks %q:\n%s", w, got)
		}
	}
}
