package main

import (
	"context"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
	"hpatch-router/router/routertest/appserver"
)

// TestE2EAppServerDesktop drives `codex app-server` as Codex Desktop does
// (clientInfo "Codex Desktop", a workspace-write thread, two turns) through
// the router: the shell tool is injected, the carrier runs through the
// helper and worker (the thread id reaches them through Codex's
// environment), and each turn's history carries the original calls.
func TestE2EAppServerDesktop(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "python3")
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_app_1", 3, "#!python3\nimport os\nprint('desktop', len(os.environ['CODEX_THREAD_ID']))\n"),
		{Message: "turn one done"},
		shellStep("call_app_2", 3, "printf 'second turn %s\\n' \"$(echo ok | tr a-z A-Z)\"\n"),
		{Message: "turn two done"},
	}})
	c := startRoutedCodex(t, up)
	var log testenv.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), codexRunBound)
	defer cancel()
	s := appserver.Session{
		Codex: c.codex, Dir: workspace(t, nil), ClientName: "Codex Desktop", Sandbox: "workspace-write", Log: &log,
		Env: codexEnv(t, c.home, c.binDir, c.runtimeDir),
	}
	res, err := s.Run(ctx, "first turn", "second turn")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("app-server log:\n%s", log.String())
		}
	})
	if err != nil {
		t.Fatalf("app-server: %v", err)
	}
	for i, turn := range res.Turns {
		if !strings.Contains(string(turn), `"completed"`) {
			t.Errorf("turn %d did not complete: %s", i, turn)
		}
	}
	posts := up.Posts()
	if len(posts) != 4 {
		t.Fatalf("upstream got %d POST /responses, want 4", len(posts))
	}
	if !strings.HasPrefix(posts[0].Header.Get("User-Agent"), "Codex Desktop/") {
		t.Errorf("user-agent %q: not the Desktop client", posts[0].Header.Get("User-Agent"))
	}
	checkRewrittenTools(t, posts[0])
	checkRewrittenTools(t, posts[2])
	checkReplay(t, posts)
	checkCallOutput(t, posts, callExpect{CallID: "call_app_1", Output: []string{"desktop 36", `"exit_code":0`}})
	checkCallOutput(t, posts, callExpect{CallID: "call_app_2", Output: []string{"second turn OK", `"exit_code":0`}})
}
