package router

import (
	"net/http/httptest"
	"strings"
	"testing"

	"hpatch-router/router/request"
)

// Issue 25: a recovered habit runs through the production translator like
// recovered JavaScript (A16): the runtime is prepared when it runs the
// worker, nothing is retained, metrics count it as recovered, and a
// refused habit is a rejection carrier that runs nothing.
func TestSSERewriteHabits(t *testing.T) {
	rtm := &fakeRuntime{}
	scripts := newFakeScripts()
	const fenced = "```python\nprint(1)\n```"
	s := &stream{}
	s.call("ctc_1", "call_1", "shell", "functions", fenced, 1)
	s.call("ctc_2", "call_2", "shell", "functions", `{"cmd":"ls -la"}`, 1)
	s.call("ctc_3", "call_3", "shell", "functions", "*** Begin Patch\n*** Update File: a.py\n*** End Patch\n", 1)
	s.completed()
	rt := newTestRouter(t, withTranslator(shebangTranslator{}), WithRuntime(rtm), WithScripts(scripts))
	evs := parseEvents(t, rewriteStream(t, rt, "t9", request.Info{Owned: true, Namespace: "functions"}, s.String()))
	if len(rtm.calls) != 1 {
		t.Fatalf("PrepareThread calls %v; a recovered worker plan needs the runtime", rtm.calls)
	}
	if len(scripts.retained) != 0 {
		t.Fatalf("retained %v; a recovered input is not retained", scripts.retained)
	}
	input := func(id string) string {
		return eventsOf(evs, "response.custom_tool_call_input.done", id)[0].data["input"].(string)
	}
	if c := input("ctc_1"); !strings.Contains(c, `shell -e python3 'print(1)\\n'`) || !strings.Contains(c, "Markdown fence") {
		t.Fatalf("fence carrier %q", c)
	}
	if c := input("ctc_2"); !strings.HasPrefix(c, `text("shell: line 1: shell takes the program itself, not JSON: send `+"`ls -la`") || strings.Contains(c, "exec_command") {
		t.Fatalf("JSON carrier %q", c)
	}
	if c := input("ctc_3"); !strings.Contains(c, "apply_patch envelope") || strings.Contains(c, "exec_command") {
		t.Fatalf("apply_patch carrier %q", c)
	}
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	got := rec.Body.String()
	for _, want := range []string{
		`hpatch_router_shell_calls_total{kind="recovered",interpreter="python3"} 1`,
		`hpatch_router_rejections_total{reason="translate"} 2`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics lack %q:\n%s", want, got)
		}
	}
}
