package router

import (
	"strings"
	"sync/atomic"
	"testing"

	"hpatch-router/plugins/registry"
	"hpatch-router/plugins/registry/registrytest"
)

// toolBox is a ToolSource whose set a test swaps.
type toolBox struct{ p atomic.Pointer[registry.Set] }

func (b *toolBox) Current() *registry.Set { return b.p.Load() }

// A call of a declared tool becomes a carrier that runs its run with the
// exact input; on the next request the model's own call is restored, also
// after the tool was removed.
func TestDeclaredToolCallAndReplay(t *testing.T) {
	box := &toolBox{}
	box.p.Store(registrytest.Load(t, registrytest.TwoTools))
	input := "select 1;  \n" // trailing blanks kept
	s := &stream{}
	s.created()
	original := s.call("ctc_1", "call_1", "sql", "functions", input, 3)
	s.completed()
	up := &replayUpstream{first: s.String()}
	h := newHarness(t, up.handler, Tools(box), withTranslator(shebangTranslator{}), StateDir(t.TempDir()))
	first := ownedRequest(`{"type":"message","role":"user","content":[]}`)
	out := readAll(t, h.post(first, "Thread-Id", "thread-1"))
	if !strings.Contains(up.body(0), `"name":"sql","description":"Run SQL."`) {
		t.Fatalf("sql not offered:\n%s", up.body(0))
	}
	var carrier string
	for _, ev := range parseEvents(t, []byte(out)) {
		if ev.data["type"] == "response.output_item.done" {
			it := ev.data["item"].(map[string]any)
			if it["name"] != "exec" || it["namespace"] != "functions" {
				t.Fatalf("carrier item %v", it)
			}
			carrier = it["input"].(string)
		}
	}
	if !strings.Contains(carrier, `'<' sqlite3 -bail 'select 1;  \\n'`) || strings.Contains(out, `"delta":"select`) {
		t.Fatalf("carrier %q\n%s", carrier, out)
	}
	box.p.Store(registrytest.Load(t, "")) // the tool is removed
	output := `{"type":"custom_tool_call_output","id":"ctco_1","call_id":"call_1","output":"1"}`
	next := strings.Replace(first, `{"type":"message"`, echoOf("ctc_1", "call_1", "functions", carrier)+","+output+`,{"type":"message"`, 1)
	readAll(t, h.post(next, "Thread-Id", "thread-1"))
	got := up.body(1)
	if !strings.Contains(got, original) || strings.Contains(got, `"name":"sql","description"`) {
		t.Fatalf("replay after removal:\n%s\nwant the original %s", got, original)
	}
	if m := readAll(t, h.do(mustReq("GET", h.front.URL+"/metrics"))); !strings.Contains(m, `hpatch_router_tool_calls_total{tool="sql"} 1`) {
		t.Errorf("metrics:\n%s", m)
	}
}
