package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hpatch-router/ident"
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
	res := runTwoTurns(t, []routertest.Step{
		shellStep("call_kept_1", 2, "#!python3\nprint('kept', 'script')\n"),
		{Message: "turn one done"},
		shellStep("call_rerun_1", 1, "#!script=@shell/call_kept_1"),
		shellStep("call_after_1", 1, "#!python3\nprint('still', 'served')\n"),
		{Message: "turn two done"},
	}, func(spec routerSpec, first *routerProc, up *routertest.Upstream) {
		second, err := tryStartRouter(t, spec)
		if err == nil {
			second.stop()
			t.Errorf("a second router started on the runtime root %s that another router serves", spec.runtimeDir)
		} else {
			msg := err.Error()
			for _, want := range []string{"is served by another hpatch-router", "pid " + strconv.Itoa(first.cmd.Process.Pid), strings.TrimPrefix(first.URL, "http://")} {
				if !strings.Contains(msg, want) {
					t.Errorf("the second router's refusal lacks %q:\n%s", want, msg)
				}
			}
		}
		kept := filepath.Join(spec.runtimeDir, ident.ThreadDirName(up.Posts()[0].Thread()), ident.ScriptsDirName, "call_kept_1")
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("the first router's retained script is gone after the second router: %v", err)
		}
	})
	posts := res.Upstream.Posts()
	checkCallOutput(t, posts, callExpect{CallID: "call_rerun_1", Output: []string{"kept script", `"exit_code":0`}, NotOutput: []string{"does not exist"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_after_1", Output: []string{"still served", `"exit_code":0`}})
}
