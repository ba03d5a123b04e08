package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"hpatch-router/router/routertest"
)

// budgetInput asks exec_command for 40,000 tokens and prints 6,000 lines
// of 22 bytes: 132,000 bytes, about 33,000 tokens at Codex's 4 bytes a
// token (FACTS §11), over the exec cell's default budget of 10,000.
const budgetInput = "#!params={\"max_output_tokens\":40000}\nseq -f 'line %05g xxxxxxxxxx' 0 5999\n"

// TestE2EOutputBudget (issue 35 item 1): through the real Codex 0.169.0
// and 0.171.0, a shell call whose #!params sets max_output_tokens reaches
// the next request whole: its carrier starts with the `// @exec:` pragma
// that raises the cell's budget, the result JSON parses and holds all
// 6,000 lines, and the replayed call is the model's own item, without the
// pragma. tool_output_token_limit is raised so the history keeps it all
// (FACTS §11: the history keeps at most 1.2 × that limit). Without the
// pragma the output arrives cut to about 40 KB inside the JSON.
func TestE2EOutputBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e: skipped with -short")
	}
	for _, version := range []string{"0.169.0", "0.171.0"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			codex := codexBin(t)
			if version != "0.169.0" {
				codex = versionedCodex(t, version)
			}
			c := e2eCase{
				Scenario: routertest.Scenario{Steps: []routertest.Step{
					shellStep("call_budget", 2, budgetInput),
					{Message: "printed"},
				}},
				Prompt:    "print a lot",
				Config:    configBundledSol,
				CodexArgs: []string{"-c", "tool_output_token_limit=60000"},
			}
			res := runCaseWith(t, codex, c)
			checkCase(t, c, res)
			checkWholeOutput(t, res.Upstream.Posts())
			carrier := rolloutCarrier(t, res.Home, "call_budget")
			if want := "// @exec: {\"max_output_tokens\": 81000}\nconst result = await tools.exec_command("; !strings.HasPrefix(carrier, want) {
				t.Errorf("the carrier Codex ran does not start with the pragma:\n%.300s", carrier)
			}
			for _, p := range res.Upstream.Posts()[1:] {
				for _, call := range p.FindItems("custom_tool_call", "call_budget") {
					if in := call.Get("input").String(); in != budgetInput {
						t.Errorf("request %d replays the call with input %.200q, want the model's", p.Index, in)
					}
				}
			}
		})
	}
	// Under the default tool_output_token_limit (10,000 tokens for
	// gpt-5.6-sol) the history keeps 1.2 × that: about 48 KB of the
	// 138 KB result, cut in the middle with Codex's own marker.
	t.Run("0.169.0 default history limit", func(t *testing.T) {
		t.Parallel()
		c := e2eCase{
			Scenario: routertest.Scenario{Steps: []routertest.Step{shellStep("call_budget", 2, budgetInput), {Message: "printed"}}},
			Prompt:   "print a lot",
			Config:   configBundledSol,
		}
		res := runCaseWith(t, codexBin(t), c)
		checkCase(t, c, res)
		posts := res.Upstream.Posts()
		if len(posts) < 2 {
			t.Fatalf("%d requests", len(posts))
		}
		outs := posts[1].FindItems("custom_tool_call_output", "call_budget")
		if len(outs) != 1 {
			t.Fatalf("%d outputs of call_budget", len(outs))
		}
		text := routertest.OutputText(outs[0])
		if n := len(text); n < 44000 || n > 52000 || !strings.Contains(text, "tokens truncated") {
			t.Errorf("under the default limit the history kept %d bytes, want about 48,000 (1.2 × 10,000 tokens), cut with a marker", n)
		}
		t.Logf("the history kept %d bytes under the default tool_output_token_limit", len(text))
	})
}

// checkWholeOutput: the call's output in the next request is the status
// header and one result JSON that parses, exited 0 and holds every line.
func checkWholeOutput(t *testing.T, posts []routertest.Request) {
	t.Helper()
	if len(posts) < 2 {
		t.Fatalf("%d requests, want 2", len(posts))
	}
	outs := posts[1].FindItems("custom_tool_call_output", "call_budget")
	if len(outs) != 1 {
		t.Fatalf("%d outputs of call_budget in the second request", len(outs))
	}
	parts := outs[0].Get("output").Array()
	if len(parts) != 2 {
		t.Fatalf("output has %d parts, want the header and the result: %.400s", len(parts), outs[0].Raw)
	}
	text := parts[1].Get("text").String()
	var result struct {
		ExitCode *int   `json:"exit_code"`
		Output   string `json:"output"`
	}
	if err := json.Unmarshal([]byte(text), &result); err != nil {
		t.Fatalf("the result JSON (%d bytes) does not parse: %v; it ends %q", len(text), err, text[max(0, len(text)-200):])
	}
	var want strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&want, "line %05d xxxxxxxxxx\n", i)
	}
	if result.ExitCode == nil || *result.ExitCode != 0 || result.Output != want.String() {
		t.Errorf("exit %v, output of %d bytes (want %d, all 6,000 lines); header %q", result.ExitCode, len(result.Output), want.Len(), parts[0].Get("text").String())
	}
	t.Logf("the result JSON reached the model whole: %d bytes", len(text))
}

// rolloutCarrier is the input of the exec call callID as Codex recorded it
// in its session rollout under home: the carrier it ran.
func rolloutCarrier(t *testing.T, home, callID string) string {
	t.Helper()
	var found string
	_ = filepath.WalkDir(filepath.Join(home, "sessions"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") || found != "" {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			p := gjson.GetBytes(sc.Bytes(), "payload")
			if p.Get("type").String() == "custom_tool_call" && p.Get("call_id").String() == callID {
				found = p.Get("input").String()
				return nil
			}
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no custom_tool_call %s in the rollout under %s", callID, home)
	}
	return found
}
