package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/router/routertest"
)

// TestE2ECarrierRunsAfterRestart: a carrier Codex received from one router
// and runs after that router stopped and another started on the same
// address, runtime root and state directory finds its thread's runtime,
// before any request of the thread reached the new router. The carrier is
// a #!cmd= template that waits in the sandbox until the test has
// restarted the router and then runs the worker; it used to exit 127 (no
// runtime for this thread): a graceful stop removes the thread directory,
// and after kill -9 the new router reclaims it as orphaned.
func TestE2ECarrierRunsAfterRestart(t *testing.T) {
	forEachRouterStop(t, runCarrierAcrossRestart)
}

func runCarrierAcrossRestart(t *testing.T, stop func(*routerProc)) {
	// The template waits for "go" in the workspace (writable in
	// workspace-write) before it runs the helper; yield_time_ms keeps
	// exec_command from yielding meanwhile.
	input := "#!cmd=touch started; until [ -e go ]; do sleep 0.05; done; {.}\n" +
		"#!params={\"yield_time_ms\":30000}\necho ran after the restart\n"
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_late_1", 2, input),
		{Message: "done"},
	}})
	run, r2 := runAcrossRestartWhileWaiting(t, up, stop, "run it late")
	if run.ExitCode != 0 {
		t.Fatalf("codex exited %d", run.ExitCode)
	}
	posts := up.Posts()
	if len(posts) != 2 {
		t.Fatalf("upstream got %d POST /responses, want 2", len(posts))
	}
	checkCallOutput(t, posts, callExpect{CallID: "call_late_1",
		Output:    []string{"ran after the restart", `"exit_code":0`},
		NotOutput: []string{"no runtime", `"exit_code":127`}})
	if !strings.Contains(r2.Output.String(), "prepared the runtime of recent threads") {
		t.Errorf("router #2 did not prepare the thread at start:\n%s", r2.Output.String())
	}
}

// runAcrossRestartWhileWaiting runs one `codex exec` turn (workspace-write)
// with prompt against a router on a fixed address; once a carrier that
// waits for "go" in the workspace (see waitForGo) has touched "started",
// it ends that router with stop, starts another on the same address,
// runtime root and state directory, and writes "go" so the carrier
// finishes. It returns Codex's run and the second router.
func runAcrossRestartWhileWaiting(t *testing.T, up *routertest.Upstream, stop func(*routerProc), prompt string) (codexRun, *routerProc) {
	t.Helper()
	codex := codexBin(t)
	binDir := e2eBins.binDir(t)
	ws := workspace(t, nil)
	spec := restartableRouterSpec(t, binDir, up.URL())
	r1 := startRouter(t, spec)
	home := writeCodexHome(t, configCatalog, r1.URL+"/v1")
	done := startCodex(t, codex, home, binDir, spec.runtimeDir, ws, prompt, "--sandbox", "workspace-write")
	waitForFile(t, filepath.Join(ws, "started"), done)
	stop(r1)
	r2 := startRouter(t, spec)
	if err := os.WriteFile(filepath.Join(ws, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	run := <-done
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("codex output (exit %d):\n%s\nrouter #1:\n%s", run.ExitCode, run.Output, r1.Output.String())
		}
	})
	return run, r2
}

// waitForFile waits until name exists, failing if codex ends first or the
// run's bound passes.
func waitForFile(t *testing.T, name string, done <-chan codexRun) {
	t.Helper()
	bound := time.After(codexRunBound)
	for {
		if _, err := os.Stat(name); err == nil {
			return
		}
		select {
		case run := <-done:
			t.Fatalf("codex ended (exit %d) before the carrier started:\n%s", run.ExitCode, run.Output)
		case <-bound:
			t.Fatalf("the carrier did not start within %s", codexRunBound)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
