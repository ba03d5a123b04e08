package main

import (
	"context"
	"net/http"
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
		{"syntax error", "model_provider = \"hpatch\n", false, "line 1", false, "skipped", true},
		{"selected provider", providerConfig(router), true, "[model_providers.hpatch]", true, `model_provider selects "hpatch"`, false},
		{"localhost is the same loopback router", providerConfig("http://localhost:8080"), true, "hpatch", true, "", false},
		{"trailing slash", strings.Replace(providerConfig(router), "/v1\"", "/v1/\"", 1), true, "hpatch", true, "", false},
		{"not selected",
			"model_provider = \"openai\"\n[model_providers.hpatch]\nbase_url = \"http://127.0.0.1:8080/v1\"\n",
			true, "hpatch", false, `model_provider selects "openai", so Codex bypasses the router`, false},
		{"default provider is openai",
			"[model_providers.r]\nbase_url = \"http://127.0.0.1:8080/v1\"\n",
			true, "[model_providers.r]", false, `the default (no model_provider) selects "openai"`, false},
		{"profile selects it",
			"model_provider = \"openai\"\nprofile = \"via-router\"\n[profiles.via-router]\nmodel_provider = \"r\"\n[model_providers.r]\nbase_url = \"http://127.0.0.1:8080/v1\"\n",
			true, "r", true, `profile "via-router" selects "r"`, false},
		{"wrong path", "[model_providers.r]\nbase_url = \"http://127.0.0.1:8080\"\n",
			false, `same address but another path: r (base_url "http://127.0.0.1:8080")`, false, "skipped", true},
		{"other port", providerConfig("http://127.0.0.1:9999"), false, "no [model_providers.*]", false, "skipped", true},
		{"chat wire api", "model_provider = \"r\"\n[model_providers.r]\nbase_url = \"http://127.0.0.1:8080/v1\"\nwire_api = \"chat\"\n",
			false, `wire_api "chat"`, true, "", false},
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

func TestDoctorRouterAndUpstream(t *testing.T) {
	ctx := context.Background()
	routerErr := `{"error":{"message":"hpatch-router: upstream unreachable: connection refused","type":"server_error","code":"upstream_unreachable"}}`
	cases := []struct {
		name   string
		status int
		body   string
		ok     bool
		detail string
	}{
		{"upstream 200", 200, `{"models":[]}`, true, "upstream answered 200"},
		{"upstream 401 without credentials", 401, `{"detail":"Unauthorized"}`, true, "sends no credentials"},
		{"upstream 404", 404, `not found`, false, "upstream answered 404"},
		{"router could not reach upstream", 502, routerErr, false, "the router answered 502 itself: hpatch-router: upstream unreachable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakeRouter(t, c.status, c.body)
			if h := checkRouterHealth(ctx, srv.URL, http.DefaultClient); !h.OK {
				t.Fatalf("health: %+v", h)
			}
			got := checkUpstreamModels(ctx, srv.URL, http.DefaultClient)
			if got.OK != c.ok || !strings.Contains(got.Detail, c.detail) || (!got.OK && got.Fix == "") {
				t.Fatalf("%+v", got)
			}
		})
	}
	t.Run("nothing listening", func(t *testing.T) {
		srv := fakeRouter(t, 200, "")
		url := srv.URL
		srv.Close()
		h := checkRouterHealth(ctx, url, http.DefaultClient)
		if h.OK || !strings.Contains(h.Detail, "connection refused") || !strings.Contains(h.Fix, "hpatch-router serve --listen 127.0.0.1:") {
			t.Fatalf("%+v", h)
		}
		if u := checkUpstreamModels(ctx, url, http.DefaultClient); u.OK {
			t.Fatalf("%+v", u)
		}
	})
	t.Run("something else listening", func(t *testing.T) {
		other := fakeRouter(t, 200, "")
		h := checkRouterHealth(ctx, other.URL+"/x", http.DefaultClient) // /x/healthz: 404
		if h.OK || !strings.Contains(h.Detail, "something other than hpatch-router") {
			t.Fatalf("%+v", h)
		}
	})
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
