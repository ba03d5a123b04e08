package main

import (
	"os"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
)

// TestE2ERuntimeRootDeleted (issue 33 case 3): the runtime root is
// deleted while the router runs (logind removes $XDG_RUNTIME_DIR at the
// last logout without linger; a tmp cleaner prunes the fallback). The
// next turn's shell calls work: the router recreates the root (same owner
// and mode checks as at startup), its snapshot and launcher and the
// thread's directory, and the committed script is back from the journal,
// so its rerun runs it. Before, every shell call exited 127 until a
// restart and the rerun said the script did not exist.
func TestE2ERuntimeRootDeleted(t *testing.T) {
	t.Parallel()
	res := runTwoTurns(t, []routertest.Step{
		shellStep("call_kept_1", 2, "#!python3\nprint('kept', 'script')\n"),
		{Message: "turn one done"},
		shellStep("call_after_1", 1, "#!python3\nprint('root', 'recreated')\n"),
		shellStep("call_rerun_1", 1, "#!script=@shell/call_kept_1"),
		{Message: "turn two done"},
	}, func(spec routerSpec, _ *routerProc, _ *routertest.Upstream) {
		if err := os.RemoveAll(spec.runtimeDir); err != nil {
			t.Fatal(err)
		}
	})
	posts := res.Upstream.Posts()
	checkCallOutput(t, posts, callExpect{CallID: "call_after_1", Output: []string{"root recreated", `"exit_code":0`}})
	checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"kept script", `"exit_code":0`}, NotOutput: []string{"does not exist"}})
	fi, err := os.Lstat(res.Router.RuntimeDir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("runtime root after the turn: %v, %v; want a 0700 directory", fi, err)
	}
	if !strings.Contains(res.Router.Output.String(), "runtime root made again") {
		t.Errorf("the router did not log the recreated runtime root:\n%s", res.Router.Output.String())
	}
}

// runTwoTurns plays steps with codex through one router: turn one, then
// between (given the router's spec, the router and the upstream), then
// `codex exec resume --last` for turn two. It fails the test unless both
// Codex runs exited 0 and the upstream got one POST per step.
func runTwoTurns(t *testing.T, steps []routertest.Step, between func(routerSpec, *routerProc, *routertest.Upstream)) e2eResult {
	t.Helper()
	testenv.NeedTool(t, "python3")
	codex, binDir := codexBin(t), e2eBins.binDir(t)
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: steps})
	spec := routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: t.TempDir(), stateDir: t.TempDir()}
	r := startRouter(t, spec)
	home := writeCodexHome(t, configCatalog, r.URL+"/v1")
	ws := workspace(t, nil)
	run1 := runCodex(t, codex, home, binDir, spec.runtimeDir, ws, "turn one")
	between(spec, r, up)
	run2 := runCodex(t, codex, home, binDir, spec.runtimeDir, ws, "turn two", "resume", "--last")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("turn one codex output (exit %d):\n%s", run1.ExitCode, run1.Output)
			t.Logf("turn two codex output (exit %d):\n%s", run2.ExitCode, run2.Output)
		}
	})
	if n := len(up.Posts()); run1.ExitCode != 0 || run2.ExitCode != 0 || n != len(steps) {
		t.Fatalf("codex exit codes %d, %d and %d posts; want 0, 0 and %d", run1.ExitCode, run2.ExitCode, n, len(steps))
	}
	return e2eResult{Codex: run2, Upstream: up, Router: r}
}
