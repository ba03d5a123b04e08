package main

import (
	"testing"

	"hpatch-router/router/routertest"

	"hpatch-router/internal/testenv"
)

// TestE2EModelSwitchOnResume: turn two resumes with `-m gpt-5.6-sol`, a
// model the custom catalog does not list, so Codex sends it without Code
// Mode: top-level tools (exec_command a function), the lite header gone,
// and turn one's additional_tools item kept as history behind a
// model-switch developer message. Codex refuses every exec call there
// ("unsupported custom tool call: exec", the model's own exec calls too,
// checked against the fake upstream without the router), so a `shell`
// whose carrier is exec could never run: the router offers none and
// passes the request through, still restoring turn one's call
// byte-exactly.
func TestE2EModelSwitchOnResume(t *testing.T) {
	t.Parallel()
	posts := runModelSwitch(t, configCatalog, "gpt-5.6-sol", []routertest.Step{
		shellStep("call_sw_1", 2, "#!python3\nprint('first', 'model')\n"),
		{Message: "turn one done"},
		{Message: "turn two done"},
	})
	if len(posts) != 3 {
		t.Fatalf("upstream got %d POST /responses, want 3", len(posts))
	}
	if got := posts[2].Get("model").String(); got != "gpt-5.6-sol" {
		t.Errorf("turn two model %q, want gpt-5.6-sol", got)
	}
	if !posts[2].Get("tools").Exists() {
		t.Fatalf("turn two has no top-level tools: this Codex sends the switched model with Code Mode, and the test needs a model it does not")
	}
	checkRewrittenTools(t, posts[0])
	if n := len(posts[2].FindTools("shell")); n != 0 {
		t.Errorf("turn two (a model without Code Mode) was offered shell %d times", n)
	}
	checkReplay(t, posts)
	checkCallOutput(t, posts, callExpect{CallID: "call_sw_1", Output: []string{"first model", `"exit_code":0`}})
}

// TestE2EModelSwitchKeepsShell: a switch between two Code Mode models
// with Responses-Lite (bundled gpt-5.6-sol, then gpt-6-sol) keeps the
// layout without top-level tools, so turn two is still offered shell and
// its call runs; turn one's call is replayed byte-exactly.
func TestE2EModelSwitchKeepsShell(t *testing.T) {
	t.Parallel()
	posts := runModelSwitch(t, configBundledSol, "gpt-6-sol", []routertest.Step{
		shellStep("call_keep_1", 2, "#!python3\nprint('first', 'model')\n"),
		{Message: "turn one done"},
		shellStep("call_keep_2", 2, "#!python3\nprint('second', 'model')\n"),
		{Message: "turn two done"},
	})
	if len(posts) != 4 {
		t.Fatalf("upstream got %d POST /responses, want 4", len(posts))
	}
	if got := posts[2].Get("model").String(); got != "gpt-6-sol" {
		t.Errorf("turn two model %q, want gpt-6-sol", got)
	}
	checkRewrittenTools(t, posts[0])
	checkRewrittenTools(t, posts[2])
	checkReplay(t, posts)
	checkCallOutput(t, posts, callExpect{CallID: "call_keep_1", Output: []string{"first model", `"exit_code":0`}})
	checkCallOutput(t, posts, callExpect{CallID: "call_keep_2", Output: []string{"second model", `"exit_code":0`}})
}

// runModelSwitch runs two Codex turns in one thread through one router:
// "first turn" with the model config gives, then `resume --last -m model`.
// It returns the POST /responses the upstream got, playing steps.
func runModelSwitch(t *testing.T, config codexConfig, model string, steps []routertest.Step) []routertest.Request {
	t.Helper()
	codex := codexBin(t)
	testenv.NeedTool(t, "python3")
	binDir := e2eBins.binDir(t)
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: steps})
	runtimeDir := t.TempDir()
	r := startRouter(t, routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: runtimeDir})
	home := writeCodexHome(t, config, r.URL+"/v1")
	ws := workspace(t, nil)
	run1 := runCodex(t, codex, home, binDir, runtimeDir, ws, "first turn")
	run2 := runCodex(t, codex, home, binDir, runtimeDir, ws, "second turn", "resume", "--last", "-m", model)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("turn one codex output:\n%s\nturn two codex output:\n%s", run1.Output, run2.Output)
		}
	})
	return up.Posts()
}
