package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
	"hpatch-router/rows"
)

// The scripts the staged-edit tests retain and edit: one python3 row
// that an edit replaces.
const (
	stagedOriginal = "#!python3\nprint('original', 'version')\n"
	stagedRow      = "print('original', 'version')"
)

// editStep is an hpatch call that replaces the script's second row.
func editStep(callID, target, text string) routertest.Step {
	return hpatchStep(callID, 0, "in @shell/"+target+"\ntype 2:"+rows.Hash([]byte(stagedRow))+" \""+text+"\"\n")
}

// outputsOf returns the output texts of callID in req, in order.
func outputsOf(req routertest.Request, callID string) []string {
	var out []string
	for _, o := range req.FindItems("custom_tool_call_output", callID) {
		out = append(out, routertest.OutputText(o))
	}
	return out
}

// TestE2EEditCountsOnceWhenSentTwice: an hpatch call that reaches Codex
// twice, because the stream was cut after it and the upstream repeated it
// in the retry, or because the upstream replayed the whole response, is
// applied once, when it ran: both carriers print the same report (no
// stale-hash rejection of a second application), and the rerun runs the
// edited script.
func TestE2EEditCountsOnceWhenSentTwice(t *testing.T) {
	t.Parallel()
	for _, cut := range []bool{true, false} {
		name := map[bool]string{true: "stream cut and retried", false: "replayed response"}[cut]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			edit := editStep("call_edit_1", "call_keep_1", "print('edited', 'once')")
			first := edit
			first.OmitCompleted = cut
			res := runCase(t, e2eCase{Prompt: "edit once", Requires: []string{"python3"}, Scenario: routertest.Scenario{Steps: []routertest.Step{
				shellStep("call_keep_1", 2, stagedOriginal),
				first,
				edit,
				shellStep("call_rerun_1", 1, "#!script=@shell/call_keep_1"),
				{Message: "final answer"},
			}}})
			if res.Codex.ExitCode != 0 {
				t.Fatalf("codex exit %d", res.Codex.ExitCode)
			}
			posts := res.Upstream.Posts()
			last := posts[len(posts)-1]
			reports := outputsOf(last, "call_edit_1")
			if len(reports) != 2 {
				t.Fatalf("%d outputs of call_edit_1, want 2 (it reached Codex twice)", len(reports))
			}
			for i, r := range reports {
				if !strings.Contains(r, "print('edited', 'once')") || strings.Contains(r, "hpatch:") {
					t.Errorf("report %d of call_edit_1 is not the edit's report:\n%s", i+1, r)
				}
			}
			checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"edited once"}, NotOutput: []string{"original version"}})
			if cut && !strings.Contains(res.Codex.Output, "Reconnecting") {
				t.Errorf("Codex did not reconnect after the cut stream:\n%s", res.Codex.Output)
			}
		})
	}
}

// TestE2EInterruptedEditDoesNotCount: a response carries a slow shell
// call and then an hpatch call; Codex is killed while the slow call runs,
// so it never runs the hpatch carrier, and `codex exec resume --last`
// records that call as aborted. The edit must not count: the rerun runs
// the script as it was before, a further edit cites the old row, and a
// script the slow call would have retained was never kept.
func TestE2EInterruptedEditDoesNotCount(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "python3")
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_keep_1", 2, stagedOriginal),
		{Message: "turn one done"},
		{Items: []routertest.Item{
			{CustomToolCall: shellStep("call_slow_1", 1, "#!bash\necho slow\nsleep 987\necho never\necho printed\n").CustomToolCall},
			{CustomToolCall: editStep("call_edit_1", "call_keep_1", "print('edited')").CustomToolCall},
		}},
		shellStep("call_rerun_1", 1, "#!script=@shell/call_keep_1"),
		editStep("call_edit_2", "call_keep_1", "print('second', 'edit')"),
		shellStep("call_rerun_2", 1, "#!script=@shell/call_keep_1"),
		shellStep("call_read_1", 1, "#!script=@shell/call_slow_1"),
		{Message: "turn three done"},
	}})
	res := runResumedAfterKill(t, up, "sleep", "987")
	posts := up.Posts()
	if len(posts) != 8 {
		t.Fatalf("upstream got %d requests, want 8", len(posts))
	}
	aborted := outputsOf(posts[3], "call_edit_1")
	if len(aborted) != 1 || aborted[0] != "aborted" {
		t.Fatalf("the resumed request carries %q as call_edit_1's output, want Codex's \"aborted\"", aborted)
	}
	checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"original version"}, NotOutput: []string{"edited"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_edit_2", Output: []string{"print('second', 'edit')"}, NotOutput: []string{"hpatch:"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_rerun_2", Output: []string{"second edit"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_read_1", Output: []string{"@shell/call_slow_1 does not exist in this thread"}})
	if !strings.Contains(res.router.Output.String(), "staged change discarded") {
		t.Errorf("the router did not log discarding the aborted edit:\n%s", res.router.Output.String())
	}
}

// resumedAfterKill is a conversation of three turns through one router
// whose second turn was killed: the router, the killed turn's run and the
// resumed third turn's.
type resumedAfterKill struct {
	router          *routerProc
	killed, resumed codexRun
}

// runResumedAfterKill plays up's steps with Codex through one router:
// "turn one", then "turn two" (resume --last), killed as soon as a process
// whose argv is killArgv runs, then "turn three" (resume --last). It fails
// the test unless turn one exits 0.
func runResumedAfterKill(t *testing.T, up *routertest.Upstream, killArgv ...string) resumedAfterKill {
	t.Helper()
	c := startRoutedCodex(t, up)
	ws := workspace(t, nil)
	if run := c.run(t, ws, "turn one"); run.ExitCode != 0 {
		t.Fatalf("turn one: codex exit %d:\n%s", run.ExitCode, run.Output)
	}
	res := resumedAfterKill{router: c.router}
	res.killed = runCodexKilledWhen(t, c.codex, c.home, c.binDir, c.runtimeDir, ws, func() bool { return processRuns(killArgv...) }, "resume", "--last", "turn two")
	res.resumed = c.run(t, ws, "turn three", "resume", "--last")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("turn two (killed):\n%s", res.killed.Output)
			t.Logf("turn three (exit %d):\n%s", res.resumed.ExitCode, res.resumed.Output)
		}
	})
	return res
}

// runCodexKilledWhen runs `codex exec --skip-git-repo-check ARGS…` like
// runCodex and kills its process group with SIGKILL as soon as until
// reports true (polled); it fails the test if Codex exits before that.
func runCodexKilledWhen(t *testing.T, codex, home, binDir, runtimeDir, workspace string, until func() bool, args ...string) codexRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), codexRunBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, append([]string{"exec", "--skip-git-repo-check"}, args...)...)
	cmd.Dir = workspace
	cmd.Env = codexEnv(t, home, binDir, runtimeDir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	done := make(chan codexRun, 1)
	started := make(chan int, 1)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	go func() {
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Start()
		if err != nil {
			started <- -1
			done <- codexRun{Output: err.Error(), ExitCode: -1}
			return
		}
		started <- cmd.Process.Pid
		_ = cmd.Wait()
		done <- codexRun{Output: out.String(), ExitCode: cmd.ProcessState.ExitCode()}
	}()
	pid := <-started
	for pid > 0 {
		select {
		case run := <-done:
			t.Fatalf("codex exited (%d) before it could be killed:\n%s", run.ExitCode, run.Output)
		case <-ctx.Done():
			t.Fatal("the moment to kill codex never came")
		case <-time.After(20 * time.Millisecond):
		}
		if until() {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			break
		}
	}
	return <-done
}

// processRuns reports whether a process whose argv is exactly argv runs.
func processRuns(argv ...string) bool {
	want := strings.Join(argv, "\x00") + "\x00"
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && string(b) == want {
			return true
		}
	}
	return false
}
