package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
)

// TestGoInstallMisnamedHelper (issue 24): `go install ./cmd/...` (as
// `go install …/cmd/…@VERSION` does) names the helper shell-helper, which
// no carrier calls. The router started from that GOBIN warns at startup
// with the file to rename, and doctor fails its helper check with the same
// fix; after the rename, the router does not warn and doctor's helper
// checks pass.
func TestGoInstallMisnamedHelper(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the commands with go install")
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", "-trimpath", "./cmd/...")
	install.Dir = repoPath(t)
	install.Env = append(os.Environ(), "GOBIN="+gobin, "CGO_ENABLED=0")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/...: %v\n%s", err, out)
	}
	if got := names(t, gobin); strings.Join(got, " ") != "hpatch-router shell-helper" {
		t.Fatalf("go install made %q, want hpatch-router and shell-helper", got)
	}
	path := "PATH=" + gobin + ":/usr/bin:/bin"
	misnamed, shell := filepath.Join(gobin, "shell-helper"), filepath.Join(gobin, "shell")
	fix := "mv " + misnamed + " " + shell
	const warning = "no shell helper of this commit on PATH"

	rp := startRouter(t, routerSpec{binDir: gobin, upstream: "http://127.0.0.1:9/v1", runtimeDir: t.TempDir(), env: []string{path}})
	if out := rp.Output.String(); !strings.Contains(out, warning) || !strings.Contains(out, fix) {
		t.Errorf("router output lacks the warning with %q:\n%s", fix, out)
	}
	rp.stop()
	helper := doctorHelperChecks(t, gobin, path)
	if helper["helper"].OK || !strings.Contains(helper["helper"].Fix, fix) {
		t.Errorf("doctor's helper check: %+v; want a fix with %q", helper["helper"], fix)
	}

	must(t, os.Rename(misnamed, shell))
	rp = startRouter(t, routerSpec{binDir: gobin, upstream: "http://127.0.0.1:9/v1", runtimeDir: t.TempDir(), env: []string{path}})
	if out := rp.Output.String(); strings.Contains(out, warning) {
		t.Errorf("router warns with the helper renamed:\n%s", out)
	}
	helper = doctorHelperChecks(t, gobin, path)
	if !helper["helper"].OK || !helper["helper-build"].OK {
		t.Errorf("doctor's helper checks after the rename: %+v", helper)
	}
}

// doctorHelperChecks runs `hpatch-router doctor --json` from bin with the
// PATH setting path and returns its helper checks by name.
func doctorHelperChecks(t *testing.T, bin, path string) map[string]check {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "hpatch-router"), "doctor", "--json", "--router", "http://127.0.0.1:9")
	cmd.Env = append(testenv.FreshHome(t).Environ(cleanEnv()), path)
	out, _ := cmd.Output() // exit 1: other checks fail on this machine
	var checks []check
	if err := json.Unmarshal(out, &checks); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	got := map[string]check{}
	for _, c := range checks {
		if strings.HasPrefix(c.Name, "helper") {
			got[c.Name] = c
		}
	}
	return got
}
