package main

import (
	"strings"

	"github.com/tidwall/gjson"

	"hpatch-router/plugins"
	"hpatch-router/router/routertest"
)

// reporter is the part of *testing.T the checks use, so they can be tested
// against a recorder.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// checkRewrittenTools: the request the upstream saw carries a free-form
// `shell` custom tool in the same container as the Code Mode `exec` owner,
// and no exec description mentions tools.exec_command (DESIGN §3, A13).
func checkRewrittenTools(t reporter, req routertest.Request) {
	t.Helper()
	execs := req.FindTools("exec")
	if len(execs) == 0 {
		t.Errorf("request %d has no exec tool", req.Index)
		return
	}
	for _, e := range execs {
		if strings.Contains(e.Def.Get("description").String(), "tools.exec_command") {
			t.Errorf("request %d: exec description (container %s, item %d) still names tools.exec_command", req.Index, e.Container, e.Item)
		}
	}
	shells := req.FindTools("shell")
	if len(shells) == 0 {
		t.Errorf("request %d: no shell tool injected", req.Index)
		return
	}
	// Incremental tool updates append a new additional_tools item that may
	// redefine exec; a shell declared earlier in the same namespace stays
	// available, so only the container (namespace or flat list) must match.
	owner, shell := execs[len(execs)-1], shells[len(shells)-1]
	if shell.Container != owner.Container {
		t.Errorf("request %d: shell injected in %s (item %d), exec owner is in %s (item %d)",
			req.Index, shell.Container, shell.Item, owner.Container, owner.Item)
	}
	if shell.Def.Get("type").String() != "custom" || shell.Def.Get("format.type").String() != "text" {
		t.Errorf("request %d: shell is not a free-form custom tool: %.300s", req.Index, shell.Def.Raw)
	}
	if strings.TrimSpace(shell.Def.Get("description").String()) == "" {
		t.Errorf("request %d: shell has no description", req.Index)
	}
	hpatch := req.FindTools("hpatch")
	if len(hpatch) == 0 || hpatch[len(hpatch)-1].Container != shell.Container {
		t.Errorf("request %d: no hpatch tool beside shell", req.Index)
		return
	}
	if f := hpatch[len(hpatch)-1].Def.Get("format"); f.Get("type").String() != "grammar" || f.Get("syntax").String() != "lark" ||
		f.Get("definition").String() != plugins.HpatchGrammar() {
		t.Errorf("request %d: hpatch is not constrained by its Lark grammar: %.300s", req.Index, f.Raw)
	}
}

// isRouterTool reports the model-facing tools the router replaces with
// carriers.
func isRouterTool(name string) bool { return name == "shell" || name == "hpatch" }

// checkReplay: every `shell`/`hpatch` call the fake model emitted comes
// back in every later request as the model's original item, byte for byte
// (not Codex's echo of the exec carrier), followed by Codex's output for
// that call_id (DESIGN §4, A15, A17). Other custom tool calls (a model
// `exec`) come back as Codex echoes them, with the model's name and input
// unchanged, whatever notice the router added to what Codex ran (§9).
func checkReplay(t reporter, posts []routertest.Request) {
	t.Helper()
	for i, p := range posts {
		for _, raw := range p.EmittedItems() {
			item := gjson.ParseBytes(raw)
			if item.Get("type").String() != "custom_tool_call" {
				continue
			}
			callID := item.Get("call_id").String()
			for _, later := range posts[i+1:] {
				if isRouterTool(item.Get("name").String()) {
					checkRestored(t, later, callID, string(raw))
				} else {
					checkEchoed(t, later, item)
				}
			}
		}
	}
}

func checkEchoed(t reporter, req routertest.Request, item gjson.Result) {
	t.Helper()
	callID := item.Get("call_id").String()
	calls := req.FindItems("custom_tool_call", callID)
	if len(calls) != 1 {
		t.Errorf("request %d: %d custom_tool_call items with call_id %s, want 1", req.Index, len(calls), callID)
		return
	}
	for _, k := range []string{"name", "namespace", "input"} {
		if got, want := calls[0].Get(k), item.Get(k); got.String() != want.String() || got.Exists() != want.Exists() {
			t.Errorf("request %d: call %s %s changed on replay:\n got %s\nwant %s", req.Index, callID, k, got.Raw, want.Raw)
		}
	}
}

func checkRestored(t reporter, req routertest.Request, callID, original string) {
	t.Helper()
	calls := req.FindItems("custom_tool_call", callID)
	if len(calls) != 1 {
		t.Errorf("request %d: %d custom_tool_call items with call_id %s, want 1", req.Index, len(calls), callID)
		return
	}
	if got := calls[0].Raw; got != original {
		switch {
		case calls[0].Get("name").String() == "exec":
			t.Errorf("request %d: the exec carrier for %s reached the model instead of the original call:\n got %.600s\nwant %s",
				req.Index, callID, got, original)
		default:
			t.Errorf("request %d: call %s not restored byte-exactly:\n got %s\nwant %s", req.Index, callID, got, original)
		}
	}
	outs := req.FindItems("custom_tool_call_output", callID)
	if len(outs) != 1 {
		t.Errorf("request %d: %d custom_tool_call_output items for %s, want 1", req.Index, len(outs), callID)
	}
	// The output must follow its call.
	callAt, outAt := -1, -1
	for k, it := range req.InputItems() {
		if it.Get("call_id").String() != callID {
			continue
		}
		switch it.Get("type").String() {
		case "custom_tool_call":
			callAt = k
		case "custom_tool_call_output":
			outAt = k
		}
	}
	if outAt >= 0 && outAt < callAt {
		t.Errorf("request %d: output of %s (input %d) precedes its call (input %d)", req.Index, callID, outAt, callAt)
	}
}
