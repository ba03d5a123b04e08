package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
)

// waitForGo is a shell input whose carrier waits in the sandbox until the
// test writes "go" in the workspace (it touches "started" first), so the
// test can restart the router while Codex holds the outputs of the
// response's calls.
const waitForGo = "#!cmd=touch started; until [ -e go ]; do sleep 0.05; done; {.}\n" +
	"#!params={\"yield_time_ms\":30000}\necho waited for go\n"

// TestE2EEditCountsAcrossRestartBeforeOutput (issue 33, case 1): the
// model retains a script, then one response edits it and runs a call
// that waits; the router is restarted (SIGTERM, kill -9) while Codex runs
// them, so the edit was staged in the router that stopped and its output
// reaches the new one. The model read the edit's report, so the rerun
// runs the edited script. It used to run the original: the staged edit
// was lost with the router and nothing committed it.
func TestE2EEditCountsAcrossRestartBeforeOutput(t *testing.T) {
	t.Parallel()
	forEachRouterStop(t, func(t *testing.T, stop func(*routerProc)) {
		testenv.NeedTool(t, "python3")
		up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
			shellStep("call_keep_1", 2, stagedOriginal),
			{Items: []routertest.Item{
				{CustomToolCall: editStep("call_edit_1", "call_keep_1", "print('edited', 'before')").CustomToolCall},
				{CustomToolCall: shellStep("call_wait_1", 1, waitForGo).CustomToolCall},
			}},
			shellStep("call_rerun_1", 1, "#!script=@shell/call_keep_1"),
			{Message: "done"},
		}})
		run, r2 := runAcrossRestartWhileWaiting(t, up, stop, "edit and wait")
		if run.ExitCode != 0 {
			t.Fatalf("codex exited %d:\n%s", run.ExitCode, run.Output)
		}
		posts := up.Posts()
		if len(posts) != 4 {
			t.Fatalf("upstream got %d POST /responses, want 4", len(posts))
		}
		checkCallOutput(t, posts, callExpect{CallID: "call_edit_1", Output: []string{"print('edited', 'before')"}, NotOutput: []string{"hpatch:"}})
		checkCallOutput(t, posts, callExpect{CallID: "call_wait_1", Output: []string{"waited for go"}})
		checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"edited before"}, NotOutput: []string{"original version"}})
		if t.Failed() {
			t.Logf("router #2:\n%s", r2.Output.String())
		}
	})
}

// TestE2EChangeCountsWhenSentAgainAfterAbort (issue 33, case 2): a
// response retains a script and edits another while a slow call runs;
// Codex is killed, so both are recorded as aborted, and the resumed turn
// gets the same calls again (same call_id, as an upstream that retries
// sends them). They run this time: the rerun of the edited script runs
// the edit and the script retained on the second sending exists. The
// router used to answer with the earlier carriers and stage nothing.
func TestE2EChangeCountsWhenSentAgainAfterAbort(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "python3")
	retain2 := shellStep("call_keep_2", 1, "#!python3\nprint('kept', 'second')\n")
	edit := editStep("call_edit_1", "call_keep_1", "print('edited', 'again')")
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_keep_1", 2, stagedOriginal),
		{Message: "turn one done"},
		{Items: []routertest.Item{
			{CustomToolCall: shellStep("call_slow_1", 1, "#!bash\necho slow\nsleep 986\necho never\necho printed\n").CustomToolCall},
			{CustomToolCall: retain2.CustomToolCall},
			{CustomToolCall: edit.CustomToolCall},
		}},
		retain2,
		edit,
		shellStep("call_rerun_1", 1, "#!script=@shell/call_keep_1"),
		shellStep("call_rerun_2", 1, "#!script=@shell/call_keep_2"),
		{Message: "turn three done"},
	}})
	runResumedAfterKill(t, up, "sleep", "986")
	posts := up.Posts()
	if len(posts) != 8 {
		t.Fatalf("upstream got %d requests, want 8", len(posts))
	}
	for _, id := range []string{"call_edit_1", "call_keep_2"} {
		if out := outputsOf(posts[3], id); len(out) != 1 || out[0] != "aborted" {
			t.Fatalf("the resumed request carries %q as %s's output, want Codex's \"aborted\"", out, id)
		}
	}
	checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"edited again"}, NotOutput: []string{"original version"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_rerun_2", Output: []string{"kept second"}, NotOutput: []string{"does not exist"}})
}

// TestE2ECorruptJournalLine (issue 33, case 4): turn one retains a script
// and edits it; the router stops and one of the journal's lines for them
// is damaged (the edit's line no longer parses; the retained body no
// longer matches its checksum). The new router says which line of which
// thread fails its check and why, and the resumed turn's rerun runs the
// edited script, which the conversation still shows. It used to run the
// original (the edit's line dropped silently) or the damaged body.
func TestE2ECorruptJournalLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, find, repl, reason string }{
		{"edit line", `"commit":"call_edit_1"`, `"commit":"call_edit_1","x":`, "not a JSON object"},
		{"retained body", `print('original', 'version')`, `print('damaged', 'version')`, "does not match its checksum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			damage := func(r *routerProc) {
				r.stop()
				damageJournal(t, r.StateDir, `"commit":`, tc.find, tc.repl)
			}
			res := runAcrossStop(t, codexBin(t), configCatalog, []routertest.Step{
				shellStep("call_keep_1", 2, stagedOriginal),
				editStep("call_edit_1", "call_keep_1", "print('edited', 'before')"),
				{Message: "turn one done"},
				shellStep("call_rerun_1", 1, "#!script=@shell/call_keep_1"),
				{Message: "turn two done"},
			}, damage)
			posts := res.Upstream.Posts()
			checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"edited before"}, NotOutput: []string{"original version", "damaged version", "does not exist"}})
			log := res.Router.Output.String()
			if !strings.Contains(log, "replay journal line fails its check") || !strings.Contains(log, "thread="+posts[0].Thread()) || !strings.Contains(log, tc.reason) {
				t.Errorf("router #2 did not warn about the damaged line with its thread and %q:\n%s", tc.reason, log)
			}
		})
	}
}

// damageJournal replaces find by repl in the one line of a journal in
// stateDir that holds both marker and find.
func damageJournal(t *testing.T, stateDir, marker, find, repl string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(stateDir, "*.replay.jsonl"))
	if len(names) != 1 {
		t.Fatalf("%d journals in the state directory, want 1", len(names))
	}
	b, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	damaged := 0
	for i, l := range lines {
		if strings.Contains(l, marker) && strings.Contains(l, find) {
			lines[i] = strings.Replace(l, find, repl, 1)
			damaged++
		}
	}
	if damaged != 1 {
		t.Fatalf("%d journal lines hold %q, want 1:\n%s", damaged, find, b)
	}
	if err := os.WriteFile(names[0], []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestE2EEditCountsWhenKilledMidResponse (issue 33, case 1): the router
// is killed (-9) after it relayed an edit's carrier (output_item.done)
// and before response.completed; Codex reconnects to the router started
// in its place, and its retry carries the call and its output. The rerun
// the retry gets runs the edited script. It used to run the original.
func TestE2EEditCountsWhenKilledMidResponse(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "python3")
	codex := codexBin(t)
	binDir := e2eBins.binDir(t)
	edit := editStep("call_edit_1", "call_keep_1", "print('edited', 'mid')")
	edit.EventDelayMS = 1500 // time to kill the router between the call and response.completed
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_keep_1", 2, stagedOriginal),
		edit,
		shellStep("call_rerun_1", 1, "#!script=@shell/call_keep_1"),
		{Message: "done"},
	}})
	spec := restartableRouterSpec(t, binDir, up.URL())
	r1 := startRouter(t, spec)
	home := writeCodexHome(t, configCatalog, r1.URL+"/v1")
	done := startCodex(t, codex, home, binDir, spec.runtimeDir, workspace(t, nil), "edit mid-response")
	waitForJournal(t, spec.stateDir, `"call_id":"call_edit_1"`, done)
	r1.kill()
	r2 := startRouter(t, spec)
	run := <-done
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("codex output (exit %d):\n%s\nrouter #1:\n%s\nrouter #2:\n%s", run.ExitCode, run.Output, r1.Output.String(), r2.Output.String())
		}
	})
	if run.ExitCode != 0 {
		t.Fatalf("codex exited %d", run.ExitCode)
	}
	posts := up.Posts()
	if len(posts) < 4 {
		t.Fatalf("upstream got %d POST /responses, want 4 (Codex retried the cut response)", len(posts))
	}
	if out := outputsOf(posts[2], "call_edit_1"); len(out) != 1 || !strings.Contains(out[0], "print('edited', 'mid')") {
		t.Fatalf("the retry carries %q as call_edit_1's output, want its report", out)
	}
	checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"edited mid"}, NotOutput: []string{"original version"}})
}

// waitForJournal waits until a journal in stateDir holds text (the
// router wrote it before relaying the carrier), failing if codex ends
// first or the run's bound passes.
func waitForJournal(t *testing.T, stateDir, text string, done <-chan codexRun) {
	t.Helper()
	bound := time.After(codexRunBound)
	for {
		names, _ := filepath.Glob(filepath.Join(stateDir, "*.replay.jsonl"))
		for _, n := range names {
			if b, err := os.ReadFile(n); err == nil && strings.Contains(string(b), text) {
				return
			}
		}
		select {
		case run := <-done:
			t.Fatalf("codex ended (exit %d) before the router journaled %s:\n%s", run.ExitCode, text, run.Output)
		case <-bound:
			t.Fatalf("the router did not journal %s within %s", text, codexRunBound)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
