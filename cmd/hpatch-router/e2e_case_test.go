package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
)

// e2eCase is one scenario file under testdata/scenarios/e2e: what the fake
// upstream plays (the embedded routertest.Scenario), how Codex is run, and
// what the recorded requests and Codex's output must show.
type e2eCase struct {
	routertest.Scenario
	// Prompt is the user message given to `codex exec`.
	Prompt string `json:"prompt"`
	// Config is the CODEX_HOME template: "catalog" (default),
	// "bundled-sol" or "gpt55".
	Config codexConfig `json:"config,omitempty"`
	// Catalog is the model_catalog_json file in testdata/e2e for configs
	// that use one (default catalog-lite-code-mode-only.json).
	Catalog string `json:"catalog,omitempty"`
	// CodexArgs go between `codex exec --skip-git-repo-check` and the
	// prompt.
	CodexArgs []string `json:"codex_args,omitempty"`
	// Direct points Codex at the fake upstream without the router (a check
	// of the harness itself).
	Direct bool `json:"direct,omitempty"`
	// RouterArgs are extra `hpatch-router serve` flags.
	RouterArgs []string `json:"router_args,omitempty"`
	// Files are created in the Codex workspace before the run (path →
	// content).
	Files map[string]string `json:"files,omitempty"`
	// Requires are executables the case needs on PATH (e.g. gopls). One
	// missing skips the case, or fails it under CI=true.
	Requires []string  `json:"requires,omitempty"`
	Expect   e2eExpect `json:"expect"`
}

type e2eExpect struct {
	// ExitCode of codex (default 0).
	ExitCode int `json:"exit_code,omitempty"`
	// Posts is the number of POST /responses the upstream must receive;
	// nil: one per step.
	Posts *int `json:"posts,omitempty"`
	// CodexOutput are substrings of Codex's stdout+stderr.
	CodexOutput []string `json:"codex_output,omitempty"`
	// NotCodexOutput must not occur in Codex's output.
	NotCodexOutput []string `json:"not_codex_output,omitempty"`
	// Rewritten: request 0 must carry the injected `shell` tool beside the
	// Code Mode exec owner and no `tools.exec_command` in its description
	// (default true unless Direct).
	Rewritten *bool `json:"rewritten,omitempty"`
	// Calls are checked in the request that follows each call.
	Calls []callExpect `json:"calls,omitempty"`
}

// callExpect describes the custom_tool_call_output Codex produced for one
// model call, as the next request carries it.
type callExpect struct {
	CallID string `json:"call_id"`
	// Output are substrings of the output text (all input_text parts
	// joined); NotOutput must not occur; Regexp must match.
	Output    []string `json:"output,omitempty"`
	NotOutput []string `json:"not_output,omitempty"`
	Regexp    []string `json:"regexp,omitempty"`
}

// loadCases reads every scenario file in dir, strictly (unknown fields are
// errors).
func loadCases(t *testing.T, dir string) map[string]e2eCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("e2e: no scenario files in %s (%v)", dir, err)
	}
	out := map[string]e2eCase{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c e2eCase
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("e2e: %s: %v", p, err)
		}
		if _, err := routertest.New(c.Scenario); err != nil {
			t.Fatalf("e2e: %s: %v", p, err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = c
	}
	return out
}

// e2eResult is everything a finished case leaves to assert on.
type e2eResult struct {
	Codex    codexRun
	Upstream *routertest.Upstream
	Router   *routerProc // nil for Direct cases
	Home     string      // the run's CODEX_HOME (sessions/ holds its rollout)
}

// runCase plays c with the Codex CLI codexBin finds.
func runCase(t *testing.T, c e2eCase) e2eResult {
	t.Helper()
	return runCaseWith(t, codexBin(t), c)
}

// runCaseWith plays c with the Codex CLI codex: fake upstream, router
// (unless Direct), CODEX_HOME, workspace files, one `codex exec`.
func runCaseWith(t *testing.T, codex string, c e2eCase) e2eResult {
	t.Helper()
	for _, bin := range c.Requires {
		testenv.NeedTool(t, bin)
	}
	up := routertest.NewUpstream(t, c.Scenario)
	runtimeDir := t.TempDir()
	res := e2eResult{Upstream: up}
	baseURL := up.URL()
	binDir := ""
	if !c.Direct {
		binDir = e2eBins.binDir(t)
		res.Router = startRouter(t, routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: runtimeDir, extra: c.RouterArgs})
		baseURL = res.Router.URL + "/v1"
	}
	home := writeCodexHomeCatalog(t, c.Config, c.Catalog, baseURL)
	res.Home = home
	res.Codex = runCodex(t, codex, home, binDir, runtimeDir, workspace(t, c.Files), c.Prompt, c.CodexArgs...)
	t.Cleanup(func() {
		if t.Failed() || testing.Verbose() {
			t.Logf("codex output (exit %d):\n%s", res.Codex.ExitCode, res.Codex.Output)
			logged := map[string]bool{}
			for _, r := range up.Requests() {
				t.Logf("upstream request %d: %s %s (step %d, %d bytes)", r.Index, r.Method, r.Path, r.Step, len(r.Body))
				for _, o := range r.FindItems("custom_tool_call_output", "") {
					if id := o.Get("call_id").String(); !logged[id] {
						logged[id] = true
						t.Logf("  output of %s: %.400q", id, routertest.OutputText(o))
					}
				}
			}
		}
	})
	return res
}

// workspace makes a fresh Codex workspace holding files (path → content).
func workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for name, content := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// checkCase applies c.Expect and the checks every router case shares.
func checkCase(t *testing.T, c e2eCase, res e2eResult) {
	t.Helper()
	posts := res.Upstream.Posts()
	if res.Codex.ExitCode != c.Expect.ExitCode {
		t.Errorf("codex exit code %d, want %d", res.Codex.ExitCode, c.Expect.ExitCode)
	}
	for _, s := range c.Expect.CodexOutput {
		if !strings.Contains(res.Codex.Output, s) {
			t.Errorf("codex output lacks %q", s)
		}
	}
	for _, s := range c.Expect.NotCodexOutput {
		if strings.Contains(res.Codex.Output, s) {
			t.Errorf("codex output contains %q", s)
		}
	}
	wantPosts := len(c.Steps)
	if c.Expect.Posts != nil {
		wantPosts = *c.Expect.Posts
	}
	if len(posts) != wantPosts {
		t.Errorf("upstream got %d POST /responses, want %d", len(posts), wantPosts)
	}
	rewritten := !c.Direct
	if c.Expect.Rewritten != nil {
		rewritten = *c.Expect.Rewritten
	}
	if rewritten && len(posts) > 0 {
		checkRewrittenTools(t, posts[0])
	}
	if !c.Direct {
		checkReplay(t, posts)
	}
	for _, ce := range c.Expect.Calls {
		checkCallOutput(t, posts, ce)
	}
}

// checkCallOutput finds the first request carrying ce.CallID's output and
// checks its text.
func checkCallOutput(t reporter, posts []routertest.Request, ce callExpect) {
	t.Helper()
	for _, p := range posts {
		outs := p.FindItems("custom_tool_call_output", ce.CallID)
		if len(outs) == 0 {
			continue
		}
		text := routertest.OutputText(outs[0])
		for _, s := range ce.Output {
			if !strings.Contains(text, s) {
				t.Errorf("%s output lacks %q; output:\n%s", ce.CallID, s, text)
			}
		}
		for _, s := range ce.NotOutput {
			if strings.Contains(text, s) {
				t.Errorf("%s output contains %q; output:\n%s", ce.CallID, s, text)
			}
		}
		for _, rx := range ce.Regexp {
			if !regexp.MustCompile(rx).MatchString(text) {
				t.Errorf("%s output does not match %s; output:\n%s", ce.CallID, rx, text)
			}
		}
		return
	}
	t.Errorf("no request carries a custom_tool_call_output for %s", ce.CallID)
}
