package router

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"hpatch-router/plugins/registry"
)

// toolBox is a ToolSource whose set a test swaps.
type toolBox struct{ p atomic.Pointer[registry.Set] }

func (b *toolBox) Current() *registry.Set { return b.p.Load() }

// loadTools loads a tools directory holding one file with content.
func loadTools(t testing.TB, content string) *registry.Set {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.toml"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	set, probs := registry.Load(dir, registry.LoadOptions{})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	return set
}

const twoTools = `[[tool]]
name = "sql"
description = "Run SQL."
run = ["sqlite3", "-bail"]
input = "stdin"
[[tool]]
name = "py"
description = "Run Python."
run = ["python3"]
params = { yield_time_ms = 5000 }
`

// Each declared tool is offered after shell and hpatch in the owner's
// container, the same bytes for the same set; a name the request already
// defines there is skipped for that request, not refused; the built-ins'
// bytes are those of a router without tools.
func TestRequestOffersDeclaredTools(t *testing.T) {
	set := loadTools(t, twoTools)
	rewrite := func(body []byte, set *registry.Set) (string, RequestInfo) {
		r, err := parseRequest(body)
		if err != nil {
			t.Fatal(err)
		}
		r.toolSet = set
		out, info, err := rewritePieces(r, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, p := range out {
			b.Write(p)
		}
		return b.String(), info
	}
	body := req("", item("at_1", ns("functions", execTool(execDesc), waitTool)))
	plain, _ := rewrite(body, nil)
	got, info := rewrite(body, set)
	again, _ := rewrite(body, set)
	if got != again {
		t.Fatal("the same set gave different bytes")
	}
	hp := gjson.Get(plain, `input.0.tools.0.tools.#(name=="hpatch")`).Raw
	want := strings.Replace(plain, hp, hp+string(set.Inject()), 1)
	if got != want || len(info.Tools) != 2 {
		t.Fatalf("offered\n%s\nwant\n%s", got, want)
	}
	if d := gjson.Get(got, `input.0.tools.0.tools.#(name=="sql").format.type`).String(); d != "text" {
		t.Errorf("sql format %q", d)
	}
	mine := `{"type":"function","name":"sql","description":"mine","parameters":{"type":"object"}}`
	body = req("", item("at_1", ns("functions", execTool(execDesc), mine)))
	got, info = rewrite(body, set)
	if len(info.Tools) != 1 || info.Tools[0].Name != "py" || strings.Join(info.SkippedTools, ",") != "sql" ||
		strings.Count(got, `"name":"sql"`) != 1 || !strings.Contains(got, `"name":"py"`) {
		t.Fatalf("skip: %+v\n%s", info, got)
	}
}

// A call of a declared tool becomes a carrier that runs its run with the
// exact input; on the next request the model's own call is restored, also
// after the tool was removed.
func TestDeclaredToolCallAndReplay(t *testing.T) {
	box := &toolBox{}
	box.p.Store(loadTools(t, twoTools))
	input := "select 1;  \n" // trailing blanks kept
	s := &stream{}
	s.created()
	original := s.call("ctc_1", "call_1", "sql", "functions", input, 3)
	s.completed()
	up := &replayUpstream{first: s.String()}
	h := newHarness(t, up.handler, Tools(box), withTranslator(shebangTranslator{}), StateDir(t.TempDir()))
	first := string(req("", item("at_1", ns("functions", execTool(execDesc)))))
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
	box.p.Store(loadTools(t, "")) // the tool is removed
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

// BenchmarkRequestToolsRatio is what five declared tools cost the request
// rewrite (parse, owners from the memo, splice), the only request work
// they add: the same body rewritten with none and with five, back to back
// in one run so machine load affects both alike. tools-x-none is the CPU
// ratio (issue 34: within 5%).
func BenchmarkRequestToolsRatio(b *testing.B) {
	five := loadTools(b, twoTools+`
[[tool]]
name = "jq"
description = "Run a jq filter on ./data.json. Input: the filter."
run = ["jq", "-f"]
[[tool]]
name = "calc"
description = "Add integers, e.g. 2+3."
run = ["bc"]
input = "stdin"
format = { type = "grammar", syntax = "regex", definition = '[0-9]+(\+[0-9]+)*' }
[[tool]]
name = "gotest"
description = "Run go test. Input: a package pattern and a test name."
run = ["sh", "-c", 'read -r p r; exec go test -run "$r" "$p"']
input = "stdin"
format = { type = "grammar", syntax = "lark", definition = "start: PKG (\" \" RUN)?\nPKG: /\\.\\/[A-Za-z0-9_.\\/-]*/\nRUN: /[A-Za-z0-9_|^$.*()\\/-]+/" }
`)
	if five.Len() != 5 {
		b.Fatalf("%d tools", five.Len())
	}
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			rr := NewRequestRewriter(0)
			rewrite := func(set *registry.Set) {
				r, err := parseRequest(bb.body)
				if err != nil {
					b.Fatal(err)
				}
				r.toolSet = set
				if _, _, err := rr.rewritePieces(r, nil); err != nil {
					b.Fatal(err)
				}
			}
			measure := func(set *registry.Set) time.Duration {
				start := cpuTime()
				for range 20 {
					rewrite(set)
				}
				return cpuTime() - start
			}
			rewrite(nil)
			var none, tools time.Duration
			for b.Loop() {
				none += measure(nil)
				tools += measure(five)
			}
			if none > 0 {
				b.ReportMetric(float64(tools)/float64(none), "tools-x-none")
			}
		})
	}
}
