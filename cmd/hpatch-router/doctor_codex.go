//go:build linux

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
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

// selectionSkipped is the selection check's detail when no provider points
// at the router: which one Codex selects does not matter yet.
const selectionSkipped = "checked once a provider points at the router"

// checkCodexConfig reads Codex's config read-only and returns two checks: a
// provider points at the router (required) and Codex selects it (advisory:
// `codex -c model_provider=NAME` can select it per run). A config Codex
// would refuse to load fails the first check, whatever it holds.
func checkCodexConfig(o doctorOptions, env doctorEnv) []check {
	prov := check{Name: "codex-provider", Title: "Codex provider points at the router", Required: true}
	sel := check{Name: "codex-selected", Title: "Codex selects that provider", Required: false}
	snippetFix := "add the provider printed by `hpatch-router codex-config --listen " + strings.TrimPrefix(strings.TrimPrefix(o.router, "http://"), "https://") + "`"
	path, err := codexConfigPath(o, env)
	if err != nil {
		prov.Detail, prov.Fix = err.Error(), "set CODEX_HOME or pass --codex-home"
		sel = sel.skip(selectionSkipped)
		return []check{prov, sel}
	}
	doc, err := readCodexConfig(path)
	if err != nil {
		prov.Detail = err.Error()
		prov.Fix = snippetFix
		if !errors.Is(err, fs.ErrNotExist) {
			prov.Fix = "fix the TOML syntax in " + path
		}
		sel = sel.skip(selectionSkipped)
		return []check{prov, sel}
	}
	if why, fix := codexRefusal(doc); why != "" {
		prov.Detail, prov.Fix = "Codex refuses "+path+": "+why, fix+" in "+path
		sel = sel.skip(selectionSkipped)
		return []check{prov, sel}
	}
	want := o.router + "/v1"
	var matched, near []string
	for name, p := range doc.ModelProviders {
		base := p.BaseURL
		if base == "" {
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
		sel = sel.skip(selectionSkipped)
		return []check{prov, sel}
	}
	name := matched[0]
	prov.OK = true
	prov.Detail = fmt.Sprintf("[model_providers.%s] in %s, base_url %s", name, path, want)
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

// codexConfigUnloadable says why Codex would refuse to start with its
// config.toml ("" when it loads or is absent): every Codex command,
// `codex sandbox` included, stops on it, so the checks that run Codex
// skip and the provider check carries the one failure and its fix.
func codexConfigUnloadable(o doctorOptions, env doctorEnv) string {
	path, err := codexConfigPath(o, env)
	if err != nil {
		return ""
	}
	doc, err := readCodexConfig(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		return "Codex cannot read " + path
	}
	if why, _ := codexRefusal(doc); why != "" {
		return "Codex refuses " + path
	}
	return ""
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
