package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hpatch-router/ident"
	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
)

// TestE2ESecondRouterOnOneRoot (issue 33 case 11): while a router serves
// a Codex thread, a second router of the same user is started on another
// port with the same runtime root and state directory (README's
// multi-port form with the default roots). It refuses to start, in one
// line naming the first one's pid and address, and leaves the root alone:
// the first router's thread keeps its directory, its retained script
// reruns and a new shell call runs. Before, the second router started,
// took over the first one's recent threads and removed them when it
// stopped: the next shell call exited 127 and the rerun said the script
// was gone.
func TestE2ESecondRouterOnOneRoot(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "python3")
	codex, binDir := codexBin(t), e2eBins.binDir(t)
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_kept_1", 2, "#!python3\nprint('kept', 'script')\n"),
		{Message: "turn one done"},
		shellStep("call_rerun_1", 1, "#!script=@shell/call_kept_1"),
		shellStep("call_after_1", 1, "#!python3\nprint('still', 'served')\n"),
		{Message: "turn two done"},
	}})
	runtimeDir, stateDir := t.TempDir(), t.TempDir()
	spec := routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: runtimeDir, stateDir: stateDir}
	first := startRouter(t, spec)
	home := writeCodexHome(t, configCatalog, first.URL+"/v1")
	ws := workspace(t, nil)
	run1 := runCodex(t, codex, home, binDir, runtimeDir, ws, "turn one")
	thread := up.Posts()[0].Thread()

	second, err := tryStartRouter(t, spec)
	if err == nil {
		second.stop()
		t.Errorf("a second router started on the runtime root %s that another router serves", runtimeDir)
	} else {
		addr := strings.TrimPrefix(first.URL, "http://")
		msg := err.Error()
		for _, want := range []string{"is served by another hpatch-router", "pid " + strconv.Itoa(first.cmd.Process.Pid), addr} {
			if !strings.Contains(msg, want) {
				t.Errorf("the second router's refusal lacks %q:\n%s", want, msg)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(runtimeDir, ident.ThreadDirName(thread), ident.ScriptsDirName, "call_kept_1")); err != nil {
		t.Errorf("the first router's retained script is gone after the second router: %v", err)
	}

	run2 := runCodex(t, codex, home, binDir, runtimeDir, ws, "turn two", "resume", "--last")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("turn one codex output (exit %d):\n%s", run1.ExitCode, run1.Output)
			t.Logf("turn two codex output (exit %d):\n%s", run2.ExitCode, run2.Output)
		}
	})
	posts := up.Posts()
	if run1.ExitCode != 0 || run2.ExitCode != 0 || len(posts) != 5 {
		t.Fatalf("codex exit codes %d, %d and %d posts; want 0, 0 and 5", run1.ExitCode, run2.ExitCode, len(posts))
	}
	checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"kept script", `"exit_code":0`}, NotOutput: []string{"does not exist"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_after_1", Output: []string{"still served", `"exit_code":0`}})
}
