package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// codexConfigPath is $CODEX_HOME/config.toml, else ~/.codex/config.toml
// (the --codex-home flag wins over both).
func codexConfigPath(o doctorOptions, env doctorEnv) (string, error) {
	home := o.codexHome
	if home == "" {
		home = env.getenv("CODEX_HOME")
	}
	if home == "" {
		h, err := env.homeDir()
		if err != nil || h == "" {
			return "", errors.New("neither CODEX_HOME nor a home directory is set")
		}
		home = filepath.Join(h, ".codex")
	}
	return filepath.Join(home, "config.toml"), nil
}

// maxConfigBytes bounds the config file the doctor reads.
const maxConfigBytes = 4 << 20

// checkCodexConfig reads Codex's config read-only and returns two checks: a
// provider points at the router (required) and Codex selects it (advisory:
// `codex -c model_provider=NAME` or a profile can select it per run).
func checkCodexConfig(o doctorOptions, env doctorEnv) []check {
	prov := check{Name: "codex-provider", Title: "Codex provider points at the router", Required: true}
	sel := check{Name: "codex-selected", Title: "Codex selects that provider", Required: false}
	snippetFix := "add the provider printed by `hpatch-router codex-config --listen " + strings.TrimPrefix(strings.TrimPrefix(o.router, "http://"), "https://") + "`"
	path, err := codexConfigPath(o, env)
	if err != nil {
		prov.Detail, prov.Fix = err.Error(), "set CODEX_HOME or pass --codex-home"
		sel.Detail = "skipped"
		return []check{prov, sel}
	}
	doc, err := readCodexConfig(path)
	if err != nil {
		prov.Detail = err.Error()
		prov.Fix = snippetFix
		if !errors.Is(err, fs.ErrNotExist) {
			prov.Fix = "fix the TOML syntax in " + path
		}
		sel.Detail = "skipped"
		return []check{prov, sel}
	}
	want := o.router + "/v1"
	var matched, near []string
	for _, name := range doc.tables("model_providers") {
		base, ok := doc.str("model_providers", name, "base_url")
		if !ok {
			continue
		}
		switch sameRouterURL(base, want) {
		case urlSame:
			matched = append(matched, name)
		case urlSameOrigin:
			near = append(near, fmt.Sprintf("%s (base_url %q)", name, base))
		}
	}
	sort.Strings(matched)
	sort.Strings(near)
	if len(matched) == 0 {
		prov.Detail = fmt.Sprintf("no [model_providers.*] in %s has base_url %s", path, want)
		if len(near) > 0 {
			prov.Detail += "; same address but another path: " + strings.Join(near, ", ")
		}
		prov.Fix = snippetFix
		sel.Detail = "skipped"
		return []check{prov, sel}
	}
	name := matched[0]
	if wire, ok := doc.str("model_providers", name, "wire_api"); ok && wire != "responses" {
		prov.Detail = fmt.Sprintf("[model_providers.%s] in %s has wire_api %q", name, path, wire)
		prov.Fix = `set wire_api = "responses" in that table`
	} else {
		prov.OK = true
		prov.Detail = fmt.Sprintf("[model_providers.%s] in %s, base_url %s", name, path, want)
	}
	active, how := selectedProvider(doc)
	for _, m := range matched {
		if m == active {
			sel.OK = true
			sel.Detail = fmt.Sprintf("%s selects %q", how, active)
			return []check{prov, sel}
		}
	}
	sel.Detail = fmt.Sprintf("%s selects %q, so Codex bypasses the router by default", how, active)
	sel.Fix = fmt.Sprintf("set model_provider = %q at the top of %s, or run `codex -c model_provider=%s`", name, path, name)
	return []check{prov, sel}
}

func readCodexConfig(path string) (tomlDoc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if len(b) > maxConfigBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxConfigBytes)
	}
	doc, err := parseTOML(string(b))
	if err != nil {
		return nil, fmt.Errorf("cannot parse %s: %v", path, err)
	}
	return doc, nil
}

// selectedProvider is the provider Codex uses without -c overrides: the
// active profile's model_provider, else the top-level one, else "openai".
func selectedProvider(doc tomlDoc) (name, how string) {
	if p, ok := doc.str("profile"); ok {
		if mp, ok := doc.str("profiles", p, "model_provider"); ok {
			return mp, fmt.Sprintf("profile %q", p)
		}
	}
	if mp, ok := doc.str("model_provider"); ok {
		return mp, "model_provider"
	}
	return "openai", "the default (no model_provider)"
}

type urlMatch int

const (
	urlDifferent urlMatch = iota
	urlSameOrigin
	urlSame
)

// sameRouterURL compares a provider base_url with the router's /v1 URL:
// same scheme and port, the same host or both loopback names, and the same
// path (trailing slashes ignored).
func sameRouterURL(base, want string) urlMatch {
	a, err1 := parseHTTPURL(base)
	b, err2 := parseHTTPURL(want)
	if err1 != nil || err2 != nil || a.Scheme != b.Scheme || a.Port() != b.Port() {
		return urlDifferent
	}
	ha, hb := strings.ToLower(a.Hostname()), strings.ToLower(b.Hostname())
	if ha != hb && !(isLoopbackName(ha) && isLoopbackName(hb)) {
		return urlDifferent
	}
	if strings.TrimRight(a.Path, "/") != strings.TrimRight(b.Path, "/") {
		return urlSameOrigin
	}
	return urlSame
}

func isLoopbackName(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// parseHTTPURL parses an absolute http(s) URL and fills in the default port.
func parseHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("not an http(s) URL with a host")
	}
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		u.Host = net.JoinHostPort(u.Hostname(), port)
	}
	return u, nil
}

func checkRouterHealth(ctx context.Context, router string, client *http.Client) check {
	c := check{Name: "router-health", Title: "router answers /healthz", Required: true}
	status, body, err := httpGet(ctx, client, router+"/healthz", 256)
	switch {
	case err != nil:
		c.Detail = err.Error()
		c.Fix = "start it: hpatch-router serve --listen " + hostPort(router) + " (or pass --router with its address)"
	case status != http.StatusOK || strings.TrimSpace(body) != "ok":
		c.Detail = fmt.Sprintf("%s/healthz answered %d %q: something other than hpatch-router listens there", router, status, clipValue(strings.TrimSpace(body)))
		c.Fix = "start the router on a free address and point Codex at it (hpatch-router codex-config --listen ADDR)"
	default:
		c.OK, c.Detail = true, router+"/healthz: ok"
	}
	return c
}

// checkUpstreamModels asks the upstream's model list through the router.
// The doctor sends no credentials, so 401/403 from the upstream still
// proves the path router→upstream works; an error the router produced
// itself (its body says "hpatch-router: …") means the upstream was not
// reached.
func checkUpstreamModels(ctx context.Context, router string, client *http.Client) check {
	c := check{Name: "upstream-models", Title: "GET /v1/models reaches the upstream through the router", Required: true}
	status, body, err := httpGet(ctx, client, router+"/v1/models", 64<<10)
	if err != nil {
		c.Detail = err.Error()
		c.Fix = "start the router first (see router answers /healthz)"
		return c
	}
	if msg, ok := routerOwnError(body); ok {
		c.Detail = fmt.Sprintf("the router answered %d itself: %s", status, msg)
		c.Fix = "check serve --upstream (e.g. https://chatgpt.com/backend-api/codex or https://api.openai.com/v1) and the network from the router"
		return c
	}
	switch {
	case status >= 200 && status < 300:
		c.OK, c.Detail = true, fmt.Sprintf("upstream answered %d", status)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		c.OK = true
		c.Detail = fmt.Sprintf("upstream answered %d (the doctor sends no credentials; Codex sends its own)", status)
	default:
		c.Detail = fmt.Sprintf("upstream answered %d", status)
		c.Fix = "check serve --upstream: /v1/<rest> is forwarded to <upstream>/<rest>"
	}
	return c
}

// routerOwnError recognises the router's own OpenAI-shaped error body.
func routerOwnError(body string) (string, bool) {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) != nil || !strings.HasPrefix(e.Error.Message, "hpatch-router: ") {
		return "", false
	}
	return e.Error.Message, true
}

func httpGet(ctx context.Context, client *http.Client, u string, limit int64) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("GET %s: %v", u, unwrapURLError(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return resp.StatusCode, "", fmt.Errorf("GET %s: reading the body: %v", u, err)
	}
	return resp.StatusCode, string(b), nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func hostPort(router string) string {
	if u, err := url.Parse(router); err == nil && u.Host != "" {
		return u.Host
	}
	return router
}
