package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/router/routertest"

	"hpatch-router/internal/testenv"
)

// TestE2EIncrementalToolsThroughRouter: turn two resumes the thread with an
// MCP server added, so Codex appends a new additional_tools item that
// redefines exec (FACTS §2.4). The router rewrites every exec definition
// (none names tools.exec_command), keeps the shell tool available, and a
// shell call in turn two runs and is replayed.
func TestE2EIncrementalToolsThroughRouter(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "python3")
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		{Message: "turn one done"},
		shellStep("call_inc_1", 2, "#!python3\nprint('after', 'tools', 'changed')\n"),
		{Message: "turn two done"},
	}})
	c := startRoutedCodex(t, up)
	ws := workspace(t, nil)
	run1 := c.run(t, ws, "first turn")
	mcp := filepath.Join(c.binDir, "tools", "recapture")
	run2 := c.run(t, ws, "second turn",
		"-c", fmt.Sprintf("mcp_servers.mini.command=%q", mcp), "-c", `mcp_servers.mini.args=["mini-mcp"]`,
		"resume", "--last")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("turn one codex output:\n%s\nturn two codex output:\n%s", run1.Output, run2.Output)
		}
	})
	posts := up.Posts()
	if len(posts) != 3 {
		t.Fatalf("upstream got %d POST /responses, want 3", len(posts))
	}
	items := 0
	for _, it := range posts[1].InputItems() {
		if it.Get("type").String() == "additional_tools" {
			items++
		}
	}
	if items < 2 {
		t.Fatalf("turn two has %d additional_tools items; the MCP server did not produce an incremental update", items)
	}
	execs := posts[1].FindTools("exec")
	if len(execs) < 2 || !strings.Contains(execs[len(execs)-1].Def.Get("description").String(), "mcp__mini__echo_text") {
		t.Errorf("turn two: want a redefined exec naming mcp__mini__echo_text in the new item, got %d exec definitions", len(execs))
	}
	checkRewrittenTools(t, posts[1])
	checkReplay(t, posts)
	checkCallOutput(t, posts, callExpect{CallID: "call_inc_1", Output: []string{"after tools changed", `"exit_code":0`}})
}
