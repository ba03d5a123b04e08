package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDoctorOneFailurePerCause: one root cause gives one ✗ (with its
// fix); the checks that depend on it are skipped and say why, and a skip
// never decides the exit status. Before, a broken config.toml also failed
// the sandbox probe with "Codex must be able to start its sandbox here",
// and a stopped router failed the upstream check too.
func TestDoctorOneFailurePerCause(t *testing.T) {
	// codexFailsOnConfig stands in for Codex, which stops on a config it
	// cannot load before it starts a sandbox.
	const codexFailsOnConfig = "#!/bin/sh\necho 'Error loading config.toml: invalid type' >&2\nexit 1\n"
	cases := []struct {
		name       string
		setup      func(m *fakeMachine, router string)
		routerDown bool
		failed     string   // the one required check that fails
		fix        string   // in its fix
		skipped    []string // the checks that depend on it
	}{
		{"broken config.toml", func(m *fakeMachine, router string) {
			m.writeCodexConfig("model_provider = \"hpatch\n")
		}, false, "codex-provider", "fix the TOML syntax", []string{"sandbox", "codex-selected"}},
		{"router not running", func(m *fakeMachine, router string) {
			m.writeCodexConfig(providerConfig(router))
		}, true, "router-health", "", []string{"router-owner", "upstream-models"}},
		{"no helper", func(m *fakeMachine, router string) {
			m.writeCodexConfig(providerConfig(router))
			must(t, os.Remove(filepath.Join(m.bin, "shell")))
		}, false, "helper", "make install", []string{"helper-build"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newFakeMachine(t)
			m.installSameBuildHelper()
			m.install("codex", []byte(codexFailsOnConfig))
			srv := fakeRouter(t, 200, `{"models":[]}`)
			url := srv.URL
			if tc.routerDown {
				down := httptest.NewServer(nil)
				url = down.URL
				down.Close()
			} else {
				m.registerLauncher(m.self)
			}
			tc.setup(m, url)
			checks, code := runDoctorJSON(t, m, "--router", url)
			var failed []string
			for _, c := range checks {
				if c.Required && !c.OK && !c.Skipped {
					failed = append(failed, c.Name)
				}
			}
			if !slices.Equal(failed, []string{tc.failed}) || code != 1 {
				t.Fatalf("failed required checks %q (exit %d), want only %q:\n%+v", failed, code, tc.failed, checks)
			}
			got := byName(checks)
			if !strings.Contains(got[tc.failed].Fix, tc.fix) {
				t.Errorf("%s: fix %q lacks %q", tc.failed, got[tc.failed].Fix, tc.fix)
			}
			for _, name := range tc.skipped {
				c := got[name]
				if !c.Skipped || c.OK || !strings.HasPrefix(c.Detail, "skipped: ") || c.Fix != "" {
					t.Errorf("%s is not a skip that says why: %+v", name, c)
				}
			}
		})
	}
}

// TestDoctorSkipMark: a skipped check prints its own mark, never ✓ or ✗,
// and is counted apart.
func TestDoctorSkipMark(t *testing.T) {
	var b strings.Builder
	printChecks(&b, []check{
		{Title: "a", Required: true, OK: true, Detail: "fine"},
		check{Title: "b", Required: true}.skip("a needs c"),
		{Title: "c", Required: true, Detail: "broken", Fix: "mend it"},
	})
	want := "✓ a (required): fine\n○ b (required): skipped: a needs c\n✗ c (required): broken\n    fix: mend it\n1 required check(s) failed; 0 advisory. 1 skipped.\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Fatalf("got\n%s\nwant the suffix\n%s", b.String(), want)
	}
	if failedRequired([]check{check{Required: true}.skip("x")}) {
		t.Fatal("a skipped required check failed the exit status")
	}
}
