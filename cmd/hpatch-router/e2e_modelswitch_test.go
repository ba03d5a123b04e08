package main

import (
	"testing"

	"hpatch-router/router/routertest"

	"hpatch-router/internal/testenv"
)

// TestE2EModelSwitchOnResume: turn two resumes with `-m gpt-5.6-sol`, so
// the additional_tools item is no longer input[0] (a model-switch developer
// message comes first, FACTS §2.2). The router still finds the owner and
// injects shell; turn one's call and turn two's call are replayed
// byte-exactly.
func TestE2EModelSwitchOnResume(t *testing.T) {
	t.Parallel()
	codex := codexBin(t)
	testenv.NeedTool(t, "python3")
	binDir := e2eBins.binDir(t)
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_sw_1", 2, "#!python3\nprint('first', 'model')\n"),
		{Message: "turn one done"},
		shellStep("call_sw_2", 2, "#!python3\nprint('switched', 'model')\n"),
		{Message: "turn two done"},
	}})
	runtimeDir := t.TempDir()
	r := startRouter(t, routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: runtimeDir})
	home := writeCodexHome(t, configCatalog, r.URL+"/v1")
	ws := workspace(t, nil)
	run1 := runCodex(t, codex, home, binDir, runtimeDir, ws, "first turn")
	run2 := runCodex(t, codex, home, binDir, runtimeDir, ws, "second turn", "resume", "--last", "-m", "gpt-5.6-sol")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("turn one codex output:\n%s\nturn two codex output:\n%s", run1.Output, run2.Output)
		}
	})
	posts := up.Posts()
	if len(posts) != 4 {
		t.Fatalf("upstream got %d POST /responses, want 4", len(posts))
	}
	if got := posts[2].Get("model").String(); got != "gpt-5.6-sol" {
		t.Errorf("turn two model %q, want gpt-5.6-sol", got)
	}
	if typ := posts[2].Get("input.0.type").String(); typ == "additional_tools" {
		t.Logf("turn two still starts with additional_tools; the layout change this test is about did not occur")
	}
	checkRewrittenTools(t, posts[0])
	checkRewrittenTools(t, posts[2])
	checkReplay(t, posts)
	checkCallOutput(t, posts, callExpect{CallID: "call_sw_1", Output: []string{"first model", `"exit_code":0`}})
	// Codex 0.169.0 refuses every exec call after `resume -m gpt-5.6-sol`
	// with "unsupported custom tool call: exec", the model's own exec calls
	// too (checked against the fake upstream without the router). So the
	// turn-two carrier either runs or gets exactly that refusal; anything
	// else is the router's doing.
	outs := posts[3].FindItems("custom_tool_call_output", "call_sw_2")
	if len(outs) != 1 {
		t.Fatalf("request 3 has %d outputs for call_sw_2", len(outs))
	}
	switch got := routertest.OutputText(outs[0]); {
	case got == "unsupported custom tool call: exec":
		t.Log("Codex refused the exec carrier after the model switch, as it refuses a plain exec call there")
	default:
		checkCallOutput(t, posts, callExpect{CallID: "call_sw_2", Output: []string{"switched model", `"exit_code":0`}})
	}
}
