package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"hpatch-router/router/routertest"
)

// TestE2ESameCallIDTwice: an upstream that sends two different calls
// under one call_id, and then the first call again in the next turn,
// across a SIGTERM restart and across a kill -9. Each call gets its own
// carrier (the repeat the first one's, without running translation or
// retention again), and every later request restores every carrier Codex
// echoes to the model's item for it, instead of answering 409
// replay_mismatch and locking the thread.
func TestE2ESameCallIDTwice(t *testing.T) {
	t.Parallel()
	forEachRouterStop(t, func(t *testing.T, stop func(*routerProc)) {
		first := "#!python3\nprint('first', 'version')\n"
		res := runAcrossStop(t, codexBin(t), configCatalog, []routertest.Step{
			shellStep("call_dup_1", 2, first),
			{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_dup_1", ID: "ctc_dup_2",
				Input: "#!python3\nprint('second', 'version')\n"}},
			{Message: "turn one done"},
			shellStep("call_dup_1", 1, first),
			{Message: "turn two done"},
		}, stop)
		posts := res.Upstream.Posts()
		checkResumed(t, res, 3)
		var emitted []string
		for _, p := range posts {
			for _, raw := range p.EmittedItems() {
				if gjson.GetBytes(raw, "type").String() == "custom_tool_call" {
					emitted = append(emitted, string(raw))
				}
			}
		}
		if len(emitted) != 3 {
			t.Fatalf("the upstream emitted %d calls, want 3", len(emitted))
		}
		// Each request holds the calls emitted before it, each restored.
		for i, want := range []int{0, 1, 2, 2, 3} {
			p := posts[i]
			calls := p.FindItems("custom_tool_call", "call_dup_1")
			if len(calls) != want {
				t.Errorf("request %d: %d calls of call_dup_1, want %d", p.Index, len(calls), want)
				continue
			}
			for k, c := range calls {
				if c.Raw != emitted[k] {
					t.Errorf("request %d: call_dup_1 #%d is\n%.400s\nwant the model's item\n%s", p.Index, k+1, c.Raw, emitted[k])
				}
			}
		}
		outs := posts[len(posts)-1].FindItems("custom_tool_call_output", "call_dup_1")
		wantOut := []string{"first version", "second version", "first version"}
		if len(outs) != len(wantOut) {
			t.Fatalf("%d outputs of call_dup_1, want %d", len(outs), len(wantOut))
		}
		for k, o := range outs {
			if text := routertest.OutputText(o); !strings.Contains(text, wantOut[k]) {
				t.Errorf("output #%d of call_dup_1 lacks %q:\n%s", k+1, wantOut[k], text)
			}
		}
	})
}

// TestE2EResumeAfterJournalDropped: a conversation resumed after its
// replay journal was removed (kept by age and size; here deleted while the
// router was stopped) goes on: the request echoing a carrier the router
// can no longer restore is not refused, the router logs a warning and
// counts it, and the resumed turn's own call runs.
func TestE2EResumeAfterJournalDropped(t *testing.T) {
	t.Parallel()
	res := runAcrossStop(t, codexBin(t), configCatalog, []routertest.Step{
		shellStep("call_old_1", 2, "#!python3\nprint('old', 'turn')\n"),
		{Message: "turn one done"},
		shellStep("call_new_1", 1, "#!python3\nprint('new', 'turn')\n"),
		{Message: "turn two done"},
	}, func(p *routerProc) {
		p.stop()
		journals, _ := filepath.Glob(filepath.Join(p.StateDir, "*.replay.jsonl"))
		if len(journals) != 1 {
			t.Fatalf("state directory holds %d journals, want the thread's one", len(journals))
		}
		if err := os.Remove(journals[0]); err != nil {
			t.Fatal(err)
		}
	})
	posts := res.Upstream.Posts()
	checkResumed(t, res, 2)
	checkCallOutput(t, posts, callExpect{CallID: "call_new_1", Output: []string{"new turn"}})
	if !strings.Contains(res.Router.Output.String(), "cannot be restored") || !strings.Contains(res.Router.Output.String(), "call_old_1") {
		t.Errorf("the router did not warn about the carrier it could not restore:\n%s", res.Router.Output.String())
	}
}
