package router

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two workspace hpatch calls in one response (issue 33 case 6): the
// second is resolved on top of what the first will write, so it may cite
// the first's rows, and its carrier names the first call (--after) for
// hpatch-write to blame if that one did not write. A call on another file
// names none.
func TestWorkspaceHpatchCallsInOneResponse(t *testing.T) {
	ws := t.TempDir()
	for name, data := range map[string]string{"a.txt": "one\ntwo\n", "b.txt": "b\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &stream{}
	s.call("ctc_1", "call_1", "hpatch", "functions", "in a.txt\ntype \"one\" \"ONE\"", 1)
	s.call("ctc_2", "call_2", "hpatch", "functions", "in a.txt\ntype \"ONE\" \"uno\"", 1)
	s.call("ctc_3", "call_3", "hpatch", "functions", "in b.txt\ntype \"b\" \"B\"", 1)
	s.completed()
	h := newHarness(t, sseHandler(s.String()),
		withTranslator(shebangTranslator{}), WithRuntime(&fakeRuntime{}), WithScripts(newFakeScripts()))
	evs := parseEvents(t, []byte(readAll(t, h.post(envRequest(ws, ws), "Thread-Id", "t9"))))
	input := func(id string) string {
		return eventsOf(evs, "response.custom_tool_call_input.done", id)[0].data["input"].(string)
	}
	if c := input("ctc_2"); !strings.Contains(c, "hpatch-write") || !strings.Contains(c, "--after call_1:") {
		t.Fatalf("the second call's carrier does not build on the first: %s", c)
	}
	for _, id := range []string{"ctc_1", "ctc_3"} {
		if c := input(id); !strings.Contains(c, "hpatch-write") || strings.Contains(c, "--after") {
			t.Fatalf("%s carrier: %s", id, c)
		}
	}
}
