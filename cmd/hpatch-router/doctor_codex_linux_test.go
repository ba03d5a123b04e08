package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDoctorCodexConfig(t *testing.T) {
	const router = "http://127.0.0.1:8080"
	cases := []struct {
		name         string
		config       string // "" = no file
		provOK       bool
		provDetail   string
		selOK        bool
		selDetail    string
		selIsSkipped bool
	}{
		{"no config file", "", false, "no such file", false, "skipped", true},
		{"syntax error", "model_provider = \"hpatch\n", false, "line 1, column", false, "skipped", true},
		{"TOML that only a lax parser reads", providerConfig(router) + "retries = 01\n", false, "line 8, column 11", false, "skipped", true},
		{"selected provider", providerConfig(router), true, "[model_providers.hpatch]", true, `model_provider selects "hpatch"`, false},
		{"localhost is the same loopback router", providerConfig("http://localhost:8080"), true, "hpatch", true, "", false},
		{"trailing slash", strings.Replace(providerConfig(router), "/v1\"", "/v1/\"", 1), true, "hpatch", true, "", false},
		{"not selected",
			"model_provider = \"openai\"\n[model_providers.hpatch]\nname = \"h\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n",
			true, "hpatch", false, `model_provider selects "openai", so Codex bypasses the router`, false},
		{"default provider is openai",
			"[model_providers.r]\nname = \"r\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n",
			true, "[model_providers.r]", false, `the default (no model_provider) selects "openai"`, false},
		{"a legacy profile line is refused by Codex 0.169",
			"model_provider = \"openai\"\nprofile = \"via-router\"\n[profiles.via-router]\nmodel_provider = \"r\"\n[model_providers.r]\nname = \"r\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n",
			false, `legacy profile = "via-router"`, false, "skipped", true},
		{"wrong path", "[model_providers.r]\nname = \"r\"\nbase_url = \"http://127.0.0.1:8080\"\n",
			false, `same address but another path: r (base_url "http://127.0.0.1:8080")`, false, "skipped", true},
		{"other port", providerConfig("http://127.0.0.1:9999"), false, "no [model_providers.*]", false, "skipped", true},
		{"chat wire api", "model_provider = \"r\"\n[model_providers.r]\nname = \"r\"\nbase_url = \"http://127.0.0.1:8080/v1\"\nwire_api = \"chat\"\n",
			false, `wire_api "chat"`, false, "skipped", true},
		{"a provider without a name", "model_provider = \"r\"\n[model_providers.r]\nbase_url = \"http://127.0.0.1:8080/v1\"\n",
			false, "has no name", false, "skipped", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newFakeMachine(t)
			if c.config != "" {
				m.writeCodexConfig(c.config)
			}
			got := checkCodexConfig(doctorOptions{router: router}, m.doctorEnv())
			prov, sel := got[0], got[1]
			if prov.OK != c.provOK || !strings.Contains(prov.Detail, c.provDetail) || (!prov.OK && prov.Fix == "") {
				t.Errorf("provider: %+v", prov)
			}
			if sel.OK != c.selOK || !strings.Contains(sel.Detail, c.selDetail) || sel.Required {
				t.Errorf("selection: %+v", sel)
			}
			// A skipped check says why, not a bare "skipped" behind a ✗.
			if c.selIsSkipped && !strings.Contains(sel.Detail, "skipped: checked once a provider points at the router") {
				t.Errorf("skipped selection does not say why: %+v", sel)
			}
			if !sel.OK && !c.selIsSkipped && !strings.Contains(sel.Fix, "codex -c model_provider=") {
				t.Errorf("selection fix: %+v", sel)
			}
		})
	}
}

func TestDoctorCodexHomeResolution(t *testing.T) {
	m := newFakeMachine(t)
	// ~/.codex when CODEX_HOME is unset.
	delete(m.env, "CODEX_HOME")
	dot := filepath.Join(m.home, ".codex")
	if err := os.MkdirAll(dot, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dot, "config.toml"), []byte(providerConfig("http://127.0.0.1:8080")), 0o600); err != nil {
		t.Fatal(err)
	}
	got := checkCodexConfig(doctorOptions{router: "http://127.0.0.1:8080"}, m.doctorEnv())
	if !got[0].OK || !strings.Contains(got[0].Detail, dot) {
		t.Fatalf("~/.codex: %+v", got[0])
	}
	// --codex-home wins.
	got = checkCodexConfig(doctorOptions{router: "http://127.0.0.1:8080", codexHome: m.codexHome}, m.doctorEnv())
	if got[0].OK || !strings.Contains(got[0].Detail, m.codexHome) {
		t.Fatalf("--codex-home: %+v", got[0])
	}
	// The doctor never writes Codex files.
	if _, err := os.Stat(filepath.Join(m.codexHome, "config.toml")); !os.IsNotExist(err) {
		t.Fatalf("config.toml appeared: %v", err)
	}
}

func TestNormalizeRouterURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":      "http://127.0.0.1:8080",
		"http://127.0.0.1:8080/":     "http://127.0.0.1:8080",
		"http://127.0.0.1:8080/v1":   "http://127.0.0.1:8080",
		"127.0.0.1:9000":             "http://127.0.0.1:9000",
		"https://router.example/v1/": "https://router.example:443",
	} {
		if got, err := normalizeRouterURL(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"ftp://x", "http://127.0.0.1:8080/api", "http://"} {
		if _, err := normalizeRouterURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
