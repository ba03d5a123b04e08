package main

import (
	"strings"
	"testing"

	"hpatch-router/router/routertest"
	"hpatch-router/rows"

	"hpatch-router/internal/testenv"
)

// TestE2EReplaySurvivesRouterRestart: the replay mapping is durable
// (DESIGN §4). Turn one runs a shell call through router #1; the router is
// stopped and #2 starts on the same --state-dir; `codex exec resume --last`
// sends turn two, whose history still carries the carrier, and the
// upstream must see the model's original call byte-exactly. Turn two runs
// another shell call to show the runtime works after the restart.
func TestE2EReplaySurvivesRouterRestart(t *testing.T) {
	t.Parallel()
	res := runAcrossRestart(t, codexBin(t), configCatalog, []routertest.Step{
		shellStep("call_before_1", 2, "#!python3\nprint('before', 'restart')\n"),
		{Message: "turn one done"},
		shellStep("call_after_1", 2, "#!python3\nprint('after', 'restart')\n"),
		{Message: "turn two done"},
	})
	posts := res.Upstream.Posts()
	checkResumed(t, res, 2)
	checkRewrittenTools(t, posts[0])
	checkRewrittenTools(t, posts[2])
	checkReplay(t, posts)
	checkCallOutput(t, posts, callExpect{CallID: "call_before_1", Output: []string{"before restart", `"exit_code":0`}})
	checkCallOutput(t, posts, callExpect{CallID: "call_after_1", Output: []string{"after restart", `"exit_code":0`}})
	if !strings.Contains(res.Codex.Output, "turn two done") {
		t.Errorf("turn two did not finish:\n%s", res.Codex.Output)
	}
}

// restartResult is a two-turn conversation across a router restart.
type restartResult struct {
	e2eResult          // turn two's Codex run and router
	First     codexRun // turn one's Codex run
}

// runAcrossRestart plays steps with codex: turn one ("turn one") through
// router #1, which is then stopped; router #2 starts on the same
// --state-dir and runtime root, and `codex exec resume --last` sends turn
// two. It fails the test unless the upstream got one POST per step and
// both Codex runs exited 0.
func runAcrossRestart(t *testing.T, codex string, cfg codexConfig, steps []routertest.Step) restartResult {
	t.Helper()
	return runAcrossStop(t, codex, cfg, steps, (*routerProc).stop)
}

// runAcrossStop is runAcrossRestart with router #1 ended by stop.
func runAcrossStop(t *testing.T, codex string, cfg codexConfig, steps []routertest.Step, stop func(*routerProc)) restartResult {
	t.Helper()
	testenv.NeedTool(t, "python3")
	binDir := e2eBins.binDir(t)
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: steps})
	runtimeDir, stateDir := t.TempDir(), t.TempDir()
	spec := routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: runtimeDir, stateDir: stateDir}

	r1 := startRouter(t, spec)
	home := writeCodexHome(t, cfg, r1.URL+"/v1")
	ws := workspace(t, nil)
	run1 := runCodex(t, codex, home, binDir, runtimeDir, ws, "turn one")
	stop(r1)

	r2 := startRouter(t, spec)
	writeCodexConfig(t, home, cfg, r2.URL+"/v1")
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
	if n := len(up.Posts()); n != len(steps) {
		t.Fatalf("upstream got %d POST /responses, want %d", n, len(steps))
	}
	return restartResult{e2eResult: e2eResult{Codex: run2, Upstream: up, Router: r2}, First: run1}
}

// checkResumed: the request at index turnTwo continues turn one's thread.
func checkResumed(t reporter, res restartResult, turnTwo int) {
	t.Helper()
	posts := res.Upstream.Posts()
	if posts[turnTwo].Thread() == "" || posts[turnTwo].Thread() != posts[0].Thread() {
		t.Errorf("turn two is thread %q, turn one %q: resume did not continue the thread", posts[turnTwo].Thread(), posts[0].Thread())
	}
}

// TestE2ERerunAfterRouterRestart: a router removes the scripts it retained
// when it stops (and a kill -9 leaves them ownerless), as an upgrade does;
// the journal keeps each retention and each edit written, so after the
// restart a script whose hour has not passed is back on demand, original
// body plus committed edits: the resumed turn's rerun (its first call,
// before anything else prepared the thread in the new router) runs the
// edited script, hread shows it, and a further edit cites its rows.
func TestE2ERerunAfterRouterRestart(t *testing.T) {
	t.Parallel()
	forEachRouterStop(t, func(t *testing.T, stop func(*routerProc)) {
		res := runAcrossStop(t, codexBin(t), configCatalog, []routertest.Step{
			shellStep("call_kept_1", 2, "#!python3\nprint('before', 'restart')\n"),
			{CustomToolCall: &routertest.CustomToolCall{Name: "hpatch", Namespace: "functions", CallID: "call_edit_1", ID: "ctc_edit_1",
				Input: "in @shell/call_kept_1\ntype 2:" + rows.Hash([]byte("print('before', 'restart')")) + " \"print('edited', 'before')\"\n"}},
			{Message: "turn one done"},
			shellStep("call_rerun_1", 1, "#!script=@shell/call_kept_1"),
			{CustomToolCall: &routertest.CustomToolCall{Name: "hpatch", Namespace: "functions", CallID: "call_edit_2", ID: "ctc_edit_2",
				Input: "in @shell/call_kept_1\ntype 2:" + rows.Hash([]byte("print('edited', 'before')")) + " \"print('edited', 'after')\"\n"}},
			shellStep("call_read_1", 1, "hread @shell/call_kept_1"),
			shellStep("call_rerun_2", 1, "#!script=@shell/call_kept_1"),
			{Message: "turn two done"},
		}, stop)
		posts := res.Upstream.Posts()
		checkResumed(t, res, 3)
		checkReplay(t, posts)
		checkCallOutput(t, posts, callExpect{CallID: "call_kept_1", Output: []string{"before restart", `"retained":true`}})
		checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"edited before"}, NotOutput: []string{"does not exist"}})
		checkCallOutput(t, posts, callExpect{CallID: "call_edit_2", Output: []string{"print('edited', 'after')"}, NotOutput: []string{"hpatch:"}})
		checkCallOutput(t, posts, callExpect{CallID: "call_read_1", Output: []string{"print('edited', 'after')"}})
		checkCallOutput(t, posts, callExpect{CallID: "call_rerun_2", Output: []string{"edited after"}})
	})
}
