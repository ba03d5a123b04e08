package router

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hpatch-router/rows"
	"hpatch-router/workspace"

	"hpatch-router/router/request"
	"hpatch-router/router/response"
)

// envRequest is a /responses body whose input declares cwd and roots the
// way Codex 0.169 does (captures/cli-bundled-sol), after an older
// environment_context the later one replaces, owned (ownedRequest).
func envRequest(cwd string, roots ...string) string {
	b, _ := json.Marshal([]any{userMsg(envContextText("/old", "/old")), userMsg("hello"), userMsg(envContextText(cwd, roots...))})
	return ownedRequest(string(b[1 : len(b)-1]))
}

// TestReadTurnWorkspace: where a turn runs is the request stage's
// workspace (request.Parsed.Workspace, tested in package request) and the
// sandbox_mode of the request's x-codex-turn-metadata header.
func TestReadTurnWorkspace(t *testing.T) {
	body, _ := json.Marshal(map[string]any{"input": []any{userMsg(envContextText("/old", "/old")), userMsg("hello"), userMsg(envContextText("/codex/src", "/codex"))}})
	req, err := request.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("x-codex-turn-metadata", `{"thread_id":"t","sandbox_mode":"workspace-write"}`)
	got := readTurnWorkspace(req, h)
	want := response.Turn{Env: workspace.Env{Cwd: "/codex/src", Roots: []string{"/codex"}}, Sandbox: "workspace-write"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// envContextText is an environment_context as Codex 0.169 writes it
// (captures/cli-bundled-sol), with values already escaped.
func envContextText(cwd string, roots ...string) string {
	var r strings.Builder
	for _, root := range roots {
		r.WriteString("<root>" + root + "</root>")
	}
	return "<environment_context>\n  <cwd>" + cwd + "</cwd>\n  <shell>bash</shell>\n  <filesystem><workspace_roots>" + r.String() +
		"</workspace_roots><permission_profile type=\"managed\"></permission_profile></filesystem>\n</environment_context>"
}

func userMsg(text string) map[string]any {
	return map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}}
}

// A workspace hpatch call is resolved against the cwd and roots of the
// request it answers, and its carrier runs hpatch-write through
// exec_command with the resolved digest; the router writes nothing. A
// request without a workspace root, and a stale row, get a carrier that
// only prints the refusal.
func TestSSERewriteWorkspaceHpatch(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\r\ntwo"), 0o644); err != nil {
		t.Fatal(err)
	}
	row2 := rows.Split([]byte("one\r\ntwo"))[1].Cite()
	edit := "in a.txt\ntype " + row2 + " \"TWO\""
	rtm := &fakeRuntime{}
	s := &stream{}
	s.call("ctc_1", "call_1", "hpatch", "functions", edit, 2)
	s.call("ctc_2", "call_2", "hpatch", "functions", "in a.txt\ntype 2:0000 \"x\"", 1)
	s.completed()
	h := newHarness(t, sseHandler(s.String()),
		withTranslator(shebangTranslator{}), WithRuntime(rtm), WithScripts(newFakeScripts()))
	evs := parseEvents(t, []byte(readAll(t, h.post(envRequest(ws, ws), "Thread-Id", "t9"))))
	input := func(id string) string {
		return eventsOf(evs, "response.custom_tool_call_input.done", id)[0].data["input"].(string)
	}
	c := input("ctc_1")
	for _, want := range []string{"tools.exec_command", "hpatch-write", "--expect", "--cwd", ws, "result.output"} {
		if !strings.Contains(c, want) {
			t.Errorf("carrier lacks %q: %s", want, c)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(data) != "one\r\ntwo" {
		t.Fatalf("the router wrote the file: %q", data)
	}
	if c := input("ctc_2"); !strings.HasPrefix(c, `text("hpatch: line 2: 2:0000 is stale: row 2 of a.txt is now`) || strings.Contains(c, "exec_command") {
		t.Fatalf("stale carrier %s", c)
	}

	s2 := &stream{}
	s2.call("ctc_3", "call_3", "hpatch", "functions", edit, 1)
	s2.completed()
	h2 := newHarness(t, sseHandler(s2.String()),
		withTranslator(shebangTranslator{}), WithRuntime(rtm), WithScripts(newFakeScripts()))
	evs = parseEvents(t, []byte(readAll(t, h2.post(ownedRequest(), "Thread-Id", "t9"))))
	if c := eventsOf(evs, "response.custom_tool_call_input.done", "ctc_3")[0].data["input"].(string); !strings.Contains(c, "this turn declares no workspace root") || strings.Contains(c, "exec_command") {
		t.Fatalf("no-root carrier %s", c)
	}
}

// A workspace hpatch call sent again gets the carrier sent the first time
// (idempotent per call_id): it is not resolved again, so a file changed
// since (by the first carrier's own write, say) does not turn it into a
// stale refusal; hpatch-write's digest check decides at run time.
func TestWorkspaceHpatchSentAgain(t *testing.T) {
	ws := t.TempDir()
	file := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(file, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit := "in a.txt\ntype " + rows.Split([]byte("one\n"))[0].Cite() + " \"ONE\""
	s := &stream{}
	s.call("ctc_1", "call_1", "hpatch", "functions", edit, 1)
	s.completed()
	h := newHarness(t, sseHandler(s.String()),
		withTranslator(shebangTranslator{}), WithScripts(newFakeScripts()), StateDir(t.TempDir()))
	carrier := func() string {
		evs := parseEvents(t, []byte(readAll(t, h.post(envRequest(ws, ws), "Thread-Id", "t9"))))
		return eventsOf(evs, "response.custom_tool_call_input.done", "ctc_1")[0].data["input"].(string)
	}
	first := carrier()
	if err := os.WriteFile(file, []byte("ONE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := carrier(); again != first || !strings.Contains(first, "hpatch-write") {
		t.Fatalf("sent again:\n%s\nfirst:\n%s", again, first)
	}
}
