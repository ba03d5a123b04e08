package main

import (
	"bytes"
	"strings"
	"testing"
)

func runCodexConfigForTest(t *testing.T, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := codexConfigMain(args, func(k string) string { return env[k] }, stdio{strings.NewReader(""), &out, &errb})
	return out.String(), errb.String(), code
}

const goldenChatGPT = `# hpatch-router for Codex: ChatGPT login (` + "`codex login`" + `).
# Add to $CODEX_HOME/config.toml (default ~/.codex/config.toml); hpatch-router
# never writes Codex files. Keep model_provider above the first [table].
# The router forwards to https://chatgpt.com/backend-api/codex (the default --upstream).
model_provider = "hpatch"

[model_providers.hpatch]
name = "hpatch-router"
base_url = "http://127.0.0.1:8080/v1"
wire_api = "responses"
requires_openai_auth = true

# The router and Codex's ` + "`shell`" + ` helper must use the same runtime root. If you
# change it (HPATCH_RUNTIME_DIR or serve --runtime-dir), export the same
# HPATCH_RUNTIME_DIR in the environment Codex runs in.
# Check the setup with: hpatch-router doctor
`

const goldenAPIKey = `# hpatch-router for Codex: API key from $OPENAI_API_KEY.
# Add to $CODEX_HOME/config.toml (default ~/.codex/config.toml); hpatch-router
# never writes Codex files. Keep model_provider above the first [table].
# The router forwards to https://api.openai.com/v1 (start it with --upstream https://api.openai.com/v1).
model_provider = "router-key"

[model_providers.router-key]
name = "hpatch-router"
base_url = "http://127.0.0.1:9191/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"

# The router and Codex's ` + "`shell`" + ` helper must use the same runtime root. If you
# change it (HPATCH_RUNTIME_DIR or serve --runtime-dir), export the same
# HPATCH_RUNTIME_DIR in the environment Codex runs in.
# Here it is set: export HPATCH_RUNTIME_DIR='/srv/hpatch run'
# Check the setup with: hpatch-router doctor
`

func TestCodexConfigGoldenChatGPT(t *testing.T) {
	out, errs, code := runCodexConfigForTest(t, nil)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != goldenChatGPT {
		t.Fatalf("snippet:\n%s\nwant:\n%s", out, goldenChatGPT)
	}
}

func TestCodexConfigGoldenAPIKey(t *testing.T) {
	env := map[string]string{"HPATCH_RUNTIME_DIR": "/srv/hpatch run"}
	out, errs, code := runCodexConfigForTest(t, env, "--listen", "0.0.0.0:9191", "--auth", "apikey", "--provider-name", "router-key")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != goldenAPIKey {
		t.Fatalf("snippet:\n%s\nwant:\n%s", out, goldenAPIKey)
	}
}

// The snippet is valid TOML for the doctor's reader and selects a provider
// pointing at the router.
func TestCodexConfigSnippetRoundTrip(t *testing.T) {
	for _, args := range [][]string{nil, {"--auth", "apikey", "--listen", "[::1]:7000"}} {
		out, _, code := runCodexConfigForTest(t, nil, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		doc, err := parseCodexConfig([]byte(out))
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if why, _ := codexRefusal(doc); why != "" {
			t.Fatalf("%v: Codex would refuse the snippet: %s", args, why)
		}
		sel := doc.ModelProvider
		base, wire := doc.ModelProviders[sel].BaseURL, doc.ModelProviders[sel].WireAPI
		if sel != "hpatch" || !strings.HasSuffix(base, "/v1") || wire != "responses" {
			t.Fatalf("%v: provider %q base %q wire %q", args, sel, base, wire)
		}
	}
}

func TestCodexConfigRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--auth", "token"},
		{"--listen", "8080"},
		{"--listen", "127.0.0.1:http"},
		{"--provider-name", "a b"},
		{"--provider-name", ""},
		{"extra"},
	} {
		out, errs, code := runCodexConfigForTest(t, nil, args...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errs)
		}
	}
	out, _, code := runCodexConfigForTest(t, nil, "--help")
	if code != 0 || !strings.Contains(out, "Nothing is written") {
		t.Fatalf("--help: %d %q", code, out)
	}
}
