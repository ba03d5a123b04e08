package main

import (
	"strings"
	"testing"

	"hpatch-router/router/routertest"
)

// TestE2EReplaySurvivesRouterRestart: the replay mapping is durable
// (DESIGN §4). Turn one runs a shell call through router #1; the router is
// stopped and #2 starts on the same --state-dir; `codex exec resume --last`
// sends turn two, whose history still carries the carrier, and the
// upstream must see the model's original call byte-exactly. Turn two runs
// another shell call to show the runtime works after the restart.
func TestE2EReplaySurvivesRouterRestart(t *testing.T) {
	t.Parallel()
	codex := codexBin(t)
	binDir := e2eBins.binDir(t)
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_before_1", 2, "#!python3\nprint('before', 'restart')\n"),
		{Message: "turn one done"},
		shellStep("call_after_1", 2, "#!python3\nprint('after', 'restart')\n"),
		{Message: "turn two done"},
	}})
	runtimeDir, stateDir := t.TempDir(), t.TempDir()
	spec := routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: runtimeDir, stateDir: stateDir}

	r1 := startRouter(t, spec)
	home := writeCodexHome(t, configCatalog, r1.URL+"/v1")
	ws := workspace(t, nil)
	run1 := runCodex(t, codex, home, binDir, runtimeDir, ws, "turn one")
	r1.stop()

	r2 := startRouter(t, spec)
	writeCodexConfig(t, home, configCatalog, r2.URL+"/v1")
	run2 := runCodex(t, codex, home, binDir, runtimeDir, ws, "turn two", "resume", "--last")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("turn one codex output (exit %d):\n%s", run1.ExitCode, run1.Output)
			t.Logf("turn two codex output (exit %d):\n%s", run2.ExitCode, run2.Output)
		}
	})
	if run1.ExitCode != 0 || run2.ExitCode != 0 {
		t.Errorf("codex exit codes %d, %d", run1.ExitCode, run2.ExitCode)
	}
	posts := up.Posts()
	if len(posts) != 4 {
		t.Fatalf("upstream got %d POST /responses, want 4", len(posts))
	}
	if posts[2].Thread() == "" || posts[2].Thread() != posts[0].Thread() {
		t.Errorf("turn two is thread %q, turn one %q: resume did not continue the thread", posts[2].Thread(), posts[0].Thread())
	}
	checkRewrittenTools(t, posts[0])
	checkRewrittenTools(t, posts[2])
	checkReplay(t, posts)
	checkCallOutput(t, posts, callExpect{CallID: "call_before_1", Output: []string{"before restart", `"exit_code":0`}})
	checkCallOutput(t, posts, callExpect{CallID: "call_after_1", Output: []string{"after restart", `"exit_code":0`}})
	if !strings.Contains(run2.Output, "turn two done") {
		t.Errorf("turn two did not finish:\n%s", run2.Output)
	}
}
