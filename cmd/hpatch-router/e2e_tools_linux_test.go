package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
)

// e2eToolsA declares a script tool and a stdin tool; e2eToolsB a grammar
// tool, added while the router runs.
const (
	e2eToolsA = `[[tool]]
name = "show"
description = "Print the input exactly (cat of its script file)."
run = ["cat"]

[[tool]]
name = "stdin_repr"
description = "Print Python's repr of the standard input."
run = ["python3", "-c", "import sys; print(repr(sys.stdin.read()))"]
input = "stdin"
`
	e2eCalcGrammar = "start: NUM (\"+\" NUM)*\nNUM: /[0-9]+/"
	e2eToolsB      = `[[tool]]
name = "calc"
description = "Add integers: the input is a sum such as 2+3."
run = ["python3", "-c", "import sys; print(eval(sys.stdin.read()))"]
input = "stdin"
format = { type = "grammar", syntax = "lark", definition = '''` + e2eCalcGrammar + `''' }
`
)

// TestE2EDeclaredTools (issue 34): the real Codex CLI against one router
// process whose tools directory changes between turns. Each declared tool
// is offered in the owner's container with its description and format,
// runs byte-exact (trailing blanks, no final newline) and replays as the
// model's own call; a file added is offered on the next request, a broken
// file keeps the set in service and is reported, a removed tool is no
// longer offered while its old call still replays.
func TestE2EDeclaredTools(t *testing.T) {
	t.Parallel()
	codex := codexBin(t)
	testenv.NeedTool(t, "python3")
	binDir := e2eBins.binDir(t)
	showIn, stdinIn := "show me  \nno newline  ", "x  \ny  "
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		{CustomToolCall: &routertest.CustomToolCall{Name: "show", Namespace: "functions", CallID: "call_show", ID: "ctc_show", Input: showIn}, Deltas: 2},
		{CustomToolCall: &routertest.CustomToolCall{Name: "stdin_repr", CallID: "call_stdin", ID: "ctc_stdin", Input: stdinIn}},
		{Message: "turn one done"},
		{CustomToolCall: &routertest.CustomToolCall{Name: "calc", Namespace: "functions", CallID: "call_calc", ID: "ctc_calc", Input: "2+3+37"}},
		{Message: "turn two done"},
		{Message: "turn three done"},
	}})
	tools := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(tools, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("a.toml", e2eToolsA)
	runtimeDir := t.TempDir()
	r := startRouter(t, routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: runtimeDir, extra: []string{"--tools-dir", tools}})
	home := writeCodexHome(t, configCatalog, r.URL+"/v1")
	ws := workspace(t, nil)
	var outputs []string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("codex output:\n%s", strings.Join(outputs, "\n---\n"))
		}
	})
	outputs = append(outputs, runCodex(t, codex, home, binDir, runtimeDir, ws, "turn one").Output)

	write("b.toml", e2eToolsB)
	waitReloads(t, r, "ok", 1)
	outputs = append(outputs, runCodex(t, codex, home, binDir, runtimeDir, ws, "turn two", "resume", "--last").Output)

	write("c.toml", "[[tool]]\nname = \"show\"\n")
	waitReloads(t, r, "invalid", 1)
	if out := r.Output.String(); !strings.Contains(out, filepath.Join(tools, "c.toml")+":1: the tool has no description") {
		t.Errorf("the broken file is not reported in the log:\n%s", out)
	}
	must(t, os.Remove(filepath.Join(tools, "c.toml")))
	must(t, os.Remove(filepath.Join(tools, "a.toml")))
	waitTools(t, r, "calc")
	outputs = append(outputs, runCodex(t, codex, home, binDir, runtimeDir, ws, "turn three", "resume", "--last").Output)

	posts := up.Posts()
	if len(posts) != 6 {
		t.Fatalf("upstream got %d POST /responses, want 6", len(posts))
	}
	offered := func(p routertest.Request, name string) *routertest.Tool {
		shells, found := p.FindTools("shell"), p.FindTools(name)
		if len(found) == 0 || len(shells) == 0 {
			return nil
		}
		if found[len(found)-1].Container != shells[len(shells)-1].Container {
			t.Errorf("request %d: %s is in %s, shell in %s", p.Index, name, found[len(found)-1].Container, shells[len(shells)-1].Container)
		}
		return &found[len(found)-1]
	}
	for i, want := range map[int][]string{0: {"show", "stdin_repr"}, 3: {"show", "stdin_repr", "calc"}, 5: {"calc"}} {
		for _, name := range []string{"show", "stdin_repr", "calc"} {
			if got := offered(posts[i], name) != nil; got != strings.Contains(strings.Join(want, ","), name) {
				t.Errorf("request %d offers %s: %v, want %v", i, name, got, !got)
			}
		}
	}
	if show := offered(posts[0], "show"); show != nil && (show.Def.Get("description").String() != "Print the input exactly (cat of its script file)." || show.Def.Get("format.type").String() != "text") {
		t.Errorf("show is offered as %s", show.Def.Raw)
	}
	if calc := offered(posts[3], "calc"); calc != nil && (calc.Def.Get("format.syntax").String() != "lark" || calc.Def.Get("format.definition").String() != e2eCalcGrammar) {
		t.Errorf("calc is offered as %s", calc.Def.Raw)
	}
	checkCallOutput(t, posts, callExpect{CallID: "call_show", Output: []string{`show me  \nno newline  "`, `"exit_code":0`}})
	checkCallOutput(t, posts, callExpect{CallID: "call_stdin", Output: []string{`'x  \\ny  '`, `"exit_code":0`}})
	checkCallOutput(t, posts, callExpect{CallID: "call_calc", Output: []string{`"output":"42\n"`}})
	// Every call comes back as the model emitted it, in every later
	// request: show after its tool was removed too.
	for i, p := range posts {
		for _, raw := range p.EmittedItems() {
			if callID := regexp.MustCompile(`"call_id":"([^"]+)"`).FindStringSubmatch(string(raw)); callID != nil && strings.Contains(string(raw), `"custom_tool_call"`) {
				for _, later := range posts[i+1:] {
					checkRestored(t, later, callID[1], string(raw))
				}
			}
		}
	}
	metrics := getText(t, r.URL+"/metrics")
	for _, want := range []string{`hpatch_router_tool_calls_total{tool="show"} 1`, `hpatch_router_tool_calls_total{tool="calc"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// waitReloads waits until the router counted n reloads of outcome (a
// bound only so a broken watcher fails instead of hanging).
func waitReloads(t *testing.T, r *routerProc, outcome string, n int) {
	t.Helper()
	re := regexp.MustCompile(`hpatch_router_tools_reloads_total\{outcome="` + outcome + `"\} (\d+)`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := re.FindStringSubmatch(getText(t, r.URL+"/metrics")); m != nil {
			if k, _ := strconv.Atoi(m[1]); k >= n {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %d %s reloads of the tools directory", n, outcome)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitTools waits until the tools in service (the dashboard's summary)
// are exactly names.
func waitTools(t *testing.T, r *routerProc, names ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	want := `"in_service":["` + strings.Join(names, `","`) + `"]`
	for !strings.Contains(getText(t, r.URL+"/api/summary"), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the tools in service never became %v:\n%s", names, getText(t, r.URL+"/api/summary"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func getText(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return b.String()
}
