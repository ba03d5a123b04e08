package main

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"hpatch-router/router/routertest"
)

// configCommandAuth: provider with command auth, catalog fetched from
// GET /v1/models through the router.
const configCommandAuth codexConfig = "command-auth"

// TestE2EModelsAndHeadersThroughRouter: Codex fetches its model catalog
// through the router (path, query, auth and body intact, DESIGN §10), the
// catalog's Responses-Lite Code Mode model gets the shell tool, and a
// response header Codex acts on (x-codex-turn-state) reaches Codex, which
// echoes it on the next request of the turn.
func TestE2EModelsAndHeadersThroughRouter(t *testing.T) {
	t.Parallel()
	catalog, err := os.ReadFile(repoPath(t, "testdata", "e2e", "catalog-lite-code-mode-only.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := e2eCase{
		Scenario: routertest.Scenario{
			Models: catalog,
			Steps: []routertest.Step{
				{
					CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions",
						CallID: "call_models_1", ID: "ctc_models_1", Input: "#!python3\nprint('catalog', 'via router')\n"},
					Headers: map[string]string{"x-codex-turn-state": "ts-e2e-1"},
				},
				{Message: "final answer"},
			},
		},
		Config:   configCommandAuth,
		Requires: []string{"python3"},
		Prompt:   "catalog through the router",
	}
	res := runCase(t, c)
	checkCase(t, c, res)
	checkCallOutput(t, res.Upstream.Posts(), callExpect{CallID: "call_models_1", Output: []string{"catalog via router", `"exit_code":0`}})

	var models []routertest.Request
	for _, r := range res.Upstream.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/models") {
			models = append(models, r)
		}
	}
	if len(models) == 0 {
		t.Fatal("no GET /models reached the upstream through the router")
	}
	m := models[0]
	if m.Path != "/v1/models" || !strings.Contains(m.RawQuery, "client_version=") {
		t.Errorf("models request target %s?%s, want /v1/models?client_version=…", m.Path, m.RawQuery)
	}
	if got := m.Header.Get("Authorization"); got != "Bearer sk-cmd-token" {
		t.Errorf("models request authorization %q, want the command-auth token", got)
	}
	posts := res.Upstream.Posts()
	if len(posts) >= 2 {
		if got := posts[1].Header.Get("X-Codex-Turn-State"); got != "ts-e2e-1" {
			t.Errorf("request 1 x-codex-turn-state %q, want ts-e2e-1 (response header not relayed to Codex?)", got)
		}
		if got := posts[0].Header.Get("Authorization"); got != "Bearer sk-cmd-token" {
			t.Errorf("request 0 authorization %q", got)
		}
	}
}
