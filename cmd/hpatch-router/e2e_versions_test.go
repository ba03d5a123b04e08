package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
)

// ciCodexVersionsDir is where .ci/run installs the matrix's Codex versions,
// one npm prefix per version; HPATCH_CODEX_VERSIONS_DIR overrides it.
const ciCodexVersionsDir = "/opt/hpatch-ci/codex-versions"

// codexVersions reads testdata/e2e/codex-versions.txt: one version a line,
// # comments.
func codexVersions(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(repoPath(t, "testdata", "e2e", "codex-versions.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v := strings.TrimSpace(sc.Text()); v != "" && !strings.HasPrefix(v, "#") {
			out = append(out, v)
		}
	}
	if err := sc.Err(); err != nil || len(out) == 0 {
		t.Fatalf("codex-versions.txt: no versions (%v)", err)
	}
	return out
}

// versionedCodex is the Codex CLI of one matrix version, or a skip (a
// failure under CI=true) when it is not installed.
//
// HPATCH_CODEX_BIN stands for the matrix version it is (`codex --version`),
// so a run pointed at one Codex uses it there too; set and empty, it
// stands for none, and every version skips as on a machine without Codex.
func versionedCodex(t *testing.T, version string) string {
	t.Helper()
	if p, set := os.LookupEnv("HPATCH_CODEX_BIN"); set {
		if p == "" {
			testenv.Missing(t, "Codex "+version, "HPATCH_CODEX_BIN is set and empty: the tests run as on a machine without Codex")
		}
		if out, err := exec.Command(p, "--version").Output(); err == nil && strings.TrimSpace(string(out)) == "codex-cli "+version {
			return p
		}
	}
	dir := os.Getenv("HPATCH_CODEX_VERSIONS_DIR")
	if dir == "" {
		dir = ciCodexVersionsDir
	}
	bin := filepath.Join(dir, version, "node_modules", ".bin", "codex")
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, "Codex "+version, "Codex %s is not installed at %s (npm install --prefix %s @openai/codex@%s)",
			version, bin, filepath.Join(dir, version), version)
	}
	return bin
}

// tally forwards what a check reports to t and counts it, so the check
// also gives the matrix its yes/no.
type tally struct {
	t *testing.T
	n int
}

func (c *tally) Helper() { c.t.Helper() }
func (c *tally) Errorf(format string, args ...any) {
	c.t.Helper()
	c.n++
	c.t.Errorf(format, args...)
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

// TestE2ECodexVersions runs the core scenarios against every Codex version
// in testdata/e2e/codex-versions.txt (issue 11 §3): a python3 call fed on
// stdin by a #!cmd= template, a Bash worker call, a direct call (in no
// namespace), retention read/edit/rerun, replay after a router restart, and
// a rejected layout shown by Codex. The model names shell and hpatch in the
// functions namespace on every version: on the flat 0.144 layout their
// carriers take the owner's (no) namespace. Each version logs one row:
// layout, shell injected, carriers ran, original calls replayed.
func TestE2ECodexVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e: skipped with -short")
	}
	cases := loadCases(t, repoPath(t, "testdata", "scenarios", "e2e"))
	rejected, ok := cases["rejected-toplevel"]
	if !ok {
		t.Fatal("e2e: scenario rejected-toplevel is missing")
	}
	for _, version := range codexVersions(t) {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			codex := versionedCodex(t, version)
			t.Run("core", func(t *testing.T) {
				t.Parallel()
				runVersionCore(t, codex, version)
			})
			t.Run("rejected-layout", func(t *testing.T) {
				t.Parallel()
				checkCase(t, rejected, runCaseWith(t, codex, rejected))
			})
		})
	}
}

// versionSteps is the core conversation: turn one (stdin, Bash, direct,
// retain, read, edit, rerun) before the router restart, turn two after it.
func versionSteps() []routertest.Step {
	return []routertest.Step{
		shellStep("call_v_stdin", 3, "#!python3\n#!cmd=printf 'a\\nb\\n' | {.}\nimport sys\nprint('py got', sys.stdin.read().split())\n"),
		shellStep("call_v_bash", 2, "for w in one two; do\n  echo \"w=$w\"\ndone | tr a-z A-Z\n"),
		shellStepNoNamespace("call_v_direct", 1, "uname -s\n"),
		shellStep("call_v_keep", 2, "#!python3\ntotal = 1 + 1\nprint('total', total)\n"),
		shellStep("call_v_read", 1, "hread @shell/call_v_keep\n"),
		hpatchStep("call_v_edit", 2, "in @shell/call_v_keep\ntype 2:cd58 \"total = 40 + 2\"\n"),
		shellStep("call_v_rerun", 1, "#!script=@shell/call_v_keep"),
		{Message: "turn one done"},
		shellStep("call_v_after", 2, "#!python3\nprint('after', 'restart')\n"),
		{Message: "turn two done"},
	}
}

func runVersionCore(t *testing.T, codex, version string) {
	res := runAcrossRestart(t, codex, configBundledSol, versionSteps())
	posts := res.Upstream.Posts()
	layout := "no exec owner"
	if execs := posts[0].FindTools("exec"); len(execs) > 0 {
		layout = execs[len(execs)-1].Container + " namespace"
		if execs[len(execs)-1].Container == "additional_tools" {
			layout = "flat additional_tools"
		}
	}
	injected := &tally{t: t}
	checkRewrittenTools(injected, posts[0])
	checkRewrittenTools(injected, posts[8])
	ran := &tally{t: t}
	for _, ce := range []callExpect{
		{CallID: "call_v_stdin", Output: []string{"py got ['a', 'b']", `"exit_code":0`}},
		{CallID: "call_v_bash", Output: []string{`W=ONE\nW=TWO\n`, `"exit_code":0`}},
		{CallID: "call_v_direct", Output: []string{"Linux", `"exit_code":0`}},
		{CallID: "call_v_keep", Output: []string{"total 2", `"retained":true`, `"script_ref":"@shell/call_v_keep"`}},
		{CallID: "call_v_read", Output: []string{"1:e554 #!python3", "2:cd58 total = 1 + 1"}},
		{CallID: "call_v_edit", Output: []string{"2:e546 total = 40 + 2"}},
		{CallID: "call_v_rerun", Output: []string{"total 42", `"exit_code":0`}},
		{CallID: "call_v_after", Output: []string{"after restart", `"exit_code":0`}},
	} {
		checkCallOutput(ran, posts, ce)
	}
	replayed := &tally{t: t}
	checkReplay(replayed, posts)
	checkResumed(replayed, res, 8)
	t.Logf("matrix: codex %s | layout %s | shell injected %s | carriers ran %s | replayed after restart %s",
		version, layout, yes(injected.n == 0), yes(ran.n == 0), yes(replayed.n == 0))
}
