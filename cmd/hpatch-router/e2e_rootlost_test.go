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
	testenv.NeedTool(t, "python3")
	codex, binDir := codexBin(t), e2eBins.binDir(t)
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_kept_1", 2, "#!python3\nprint('kept', 'script')\n"),
		{Message: "turn one done"},
		shellStep("call_after_1", 1, "#!python3\nprint('root', 'recreated')\n"),
		shellStep("call_rerun_1", 1, "#!script=@shell/call_kept_1"),
		{Message: "turn two done"},
	}})
	runtimeDir := t.TempDir()
	r := startRouter(t, routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: runtimeDir})
	home := writeCodexHome(t, configCatalog, r.URL+"/v1")
	ws := workspace(t, nil)
	run1 := runCodex(t, codex, home, binDir, runtimeDir, ws, "turn one")
	if err := os.RemoveAll(runtimeDir); err != nil {
		t.Fatal(err)
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
	checkCallOutput(t, posts, callExpect{CallID: "call_after_1", Output: []string{"root recreated", `"exit_code":0`}})
	checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"kept script", `"exit_code":0`}, NotOutput: []string{"does not exist"}})
	fi, err := os.Lstat(runtimeDir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("runtime root after the turn: %v, %v; want a 0700 directory", fi, err)
	}
	if !strings.Contains(r.Output.String(), "runtime root") {
		t.Errorf("the router did not log the recreated runtime root:\n%s", r.Output.String())
	}
}
