package main

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
)

// makeRun is `make run` started from the repository with env: the
// headline command, `go run` under the hood.
type makeRun struct {
	URL    string
	cmd    *exec.Cmd
	output *testenv.Buffer
	exited chan struct{}
}

// startMakeRun starts `make run LISTEN=…` and returns once the router
// answers /healthz.
func startMakeRun(t *testing.T, env []string) *makeRun {
	t.Helper()
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return startMakeRunArgs(t, env, addr, "LISTEN="+addr, "UPSTREAM=http://127.0.0.1:9/v1")
}

// startMakeRunArgs is `make run VARS…` serving at addr.
func startMakeRunArgs(t *testing.T, env []string, addr string, vars ...string) *makeRun {
	t.Helper()
	r := &makeRun{URL: "http://" + addr, output: &testenv.Buffer{}, exited: make(chan struct{})}
	r.cmd = exec.Command("make", append([]string{"-C", repoPath(t), "run"}, vars...)...)
	r.cmd.Env = env
	r.cmd.Stdout, r.cmd.Stderr = r.output, r.output
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = r.cmd.Wait(); close(r.exited) }()
	t.Cleanup(func() { r.stop() })
	// go run may build first: the bound is for a cold build cache.
	deadline := time.Now().Add(5 * time.Minute)
	client := &http.Client{Timeout: time.Second}
	for {
		if resp, err := client.Get(r.URL + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r
			}
		}
		select {
		case <-r.exited:
			t.Fatalf("make run exited before serving:\n%s", r.output.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("make run did not serve at %s:\n%s", addr, r.output.String())
		}
	}
}

// stop ends the whole process group (make, go run, the router) with
// SIGTERM and returns everything it printed.
func (r *makeRun) stop() string {
	select {
	case <-r.exited:
	default:
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGTERM)
		<-r.exited
	}
	return r.output.String()
}

// TestMakeRunHelperCheck (issue 37): after `make install`, `make run`
// (built by go run, without -trimpath, with other flags than make's) logs
// no helper warning, since the helper of the same commit and protocol
// fits. With the helper of another commit first on PATH, or no helper,
// it warns, naming the helper's commit or the missing helper.
func TestMakeRunHelperCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries through make")
	}
	testenv.NeedTool(t, "make")
	gobin, other := t.TempDir(), t.TempDir()
	home := testenv.FreshHome(t)
	goDir := filepath.Dir(testenv.NeedTool(t, "go"))
	base := goDir + ":/usr/bin:/bin"
	if p, ok := lookPathIn("shell", base); ok {
		t.Fatalf("%s is on the test's base PATH: the cases need a PATH without a helper", p)
	}
	env := append(home.Environ(cleanEnv()), goEnvVars(t, "GOCACHE", "GOMODCACHE", "GOPATH")...)
	withPath := func(path string) []string { return append(append([]string{}, env...), "PATH="+path) }

	install := exec.Command("make", "-s", "-C", repoPath(t), "install")
	install.Env = append(withPath(base), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	// The helper of another commit, built as make builds it.
	if err := testenv.Build(filepath.Join(other, "shell"), "hpatch-router/cmd/shell-helper",
		"-ldflags=-s -w -X main.version=0000000"); err != nil {
		t.Fatal(err)
	}
	const warning = "no shell helper of this commit on PATH"
	for _, tc := range []struct {
		name, path string
		warns      string // "" = no warning
	}{
		{"after make install", gobin + ":" + base, ""},
		{"another commit's helper first", other + ":" + gobin + ":" + base, "helper of commit 0000000"},
		{"no helper", base, "no executable named shell on PATH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := startMakeRun(t, withPath(tc.path)).stop()
			if !strings.Contains(out, "hpatch-router listening") {
				t.Fatalf("make run did not log its start:\n%s", out)
			}
			switch {
			case tc.warns == "" && strings.Contains(out, warning):
				t.Errorf("make run after make install warns:\n%s", out)
			case tc.warns != "" && (!strings.Contains(out, warning) || !strings.Contains(out, tc.warns)):
				t.Errorf("make run does not warn with %q:\n%s", tc.warns, out)
			}
		})
	}
}
