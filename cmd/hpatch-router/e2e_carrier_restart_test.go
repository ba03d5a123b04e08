package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	for _, c := range []struct {
		name string
		stop func(*routerProc)
	}{
		{"SIGTERM", (*routerProc).stop},
		{"kill -9", (*routerProc).kill},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runCarrierAcrossRestart(t, c.stop)
		})
	}
}

func runCarrierAcrossRestart(t *testing.T, stop func(*routerProc)) {
	codex := codexBin(t)
	binDir := e2eBins.binDir(t)
	ws := workspace(t, nil)
	// The template waits for "go" in the workspace (writable in
	// workspace-write) before it runs the helper; yield_time_ms keeps
	// exec_command from yielding meanwhile.
	input := "#!cmd=touch started; until [ -e go ]; do sleep 0.05; done; {.}\n" +
		"#!params={\"yield_time_ms\":30000}\necho ran after the restart\n"
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_late_1", 2, input),
		{Message: "done"},
	}})
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	spec := routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: t.TempDir(), stateDir: t.TempDir(), listen: addr}
	r1 := startRouter(t, spec)
	home := writeCodexHome(t, configCatalog, r1.URL+"/v1")

	ctx, cancel := context.WithTimeout(context.Background(), codexRunBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "exec", "--skip-git-repo-check", "--sandbox", "workspace-write", "run it late")
	cmd.Dir = ws
	cmd.Env = codexEnv(t, home, binDir, spec.runtimeDir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	done := make(chan codexRun, 1)
	go func() {
		run, err := execCodex(ctx, cmd)
		if err != nil {
			run.ExitCode, run.Output = -1, run.Output+"\n("+err.Error()+")"
		}
		done <- run
	}()

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
