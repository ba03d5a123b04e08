package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/internal/testuser"
	"hpatch-router/router/access"
	"hpatch-router/router/routertest"
)

// Bounds for subprocesses. They only stop a hung run; no assertion
// depends on them.
const (
	routerStartBound = 30 * time.Second
	codexRunBound    = 150 * time.Second
)

// routerProc is a running `hpatch-router serve`.
type routerProc struct {
	URL        string // http://127.0.0.1:PORT
	RuntimeDir string
	StateDir   string
	Output     *testenv.Buffer // stdout and stderr
	cmd        *exec.Cmd
	exited     chan struct{}
}

// routerSpec says how to run `hpatch-router serve`.
type routerSpec struct {
	binDir, upstream, runtimeDir string
	stateDir                     string   // "" → a fresh t.TempDir()
	listen                       string   // "" → a free loopback port
	extra                        []string // more serve flags, e.g. --mode passthrough
	// as runs the router as this user with its environment plus env;
	// runtimeDir "" then leaves the root to the default rule. Without as,
	// env is added to the test's cleaned environment.
	as  *testuser.User
	env []string
}

// startRouter runs `hpatch-router serve` against spec.upstream on a free
// loopback port and waits until /healthz answers 200 (or, for a router run
// as another user, 403 peer_not_owner). It is stopped at the
// end of the test; its output is logged when the test fails.
func startRouter(t testing.TB, spec routerSpec) *routerProc {
	t.Helper()
	if spec.stateDir == "" {
		spec.stateDir = t.TempDir()
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		p, err := tryStartRouter(t, spec)
		if err == nil {
			return p
		}
		lastErr = err
		// A port taken meanwhile, or ETXTBSY: a binary just copied for a
		// test user can still be open for writing in a child another
		// parallel test forked before its exec (golang/go#22315).
		if !strings.Contains(err.Error(), "address already in use") && !errors.Is(err, syscall.ETXTBSY) {
			break
		}
	}
	t.Fatalf("e2e: %v", lastErr)
	return nil
}

func tryStartRouter(t testing.TB, spec routerSpec) (*routerProc, error) {
	addr, err := spec.listen, error(nil)
	if addr == "" {
		addr, err = freeAddr()
	}
	if err != nil {
		return nil, err
	}
	p := &routerProc{
		URL: "http://" + addr, RuntimeDir: spec.runtimeDir, StateDir: spec.stateDir,
		Output: &testenv.Buffer{}, exited: make(chan struct{}),
	}
	args := []string{"serve", "--listen", addr, "--upstream", spec.upstream, "--state-dir", spec.stateDir}
	if spec.runtimeDir != "" {
		args = append(args, "--runtime-dir", spec.runtimeDir)
	}
	args = append(args, spec.extra...)
	p.cmd = exec.Command(filepath.Join(spec.binDir, "hpatch-router"), args...)
	p.cmd.Stdout, p.cmd.Stderr = p.Output, p.Output
	p.cmd.Env = append(append(testenv.FreshHome(t).Environ(cleanEnv()), "HPATCH_RUNTIME_DIR="+spec.runtimeDir), spec.env...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if spec.as != nil {
		p.cmd.Env = append(spec.as.Env(cleanEnv()...), spec.env...)
		p.cmd.SysProcAttr = spec.as.SysProcAttr()
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("router %s output:\n%s", strings.Join(args, " "), p.Output.String())
		}
	})
	deadline := time.After(routerStartBound)
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(p.URL + "/healthz")
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
			// A router run as another user serves only that user: its
			// refusal of this process is the answer that it is up.
			if spec.as != nil && resp.StatusCode == http.StatusForbidden && strings.Contains(string(body), `"code":"`+access.CodePeerNotOwner+`"`) {
				return p, nil
			}
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("hpatch-router %s exited before /healthz answered (%v):\n%s",
				strings.Join(args, " "), p.cmd.ProcessState, p.Output.String())
		case <-deadline:
			p.stop()
			return nil, fmt.Errorf("hpatch-router /healthz did not answer 200 within %s:\n%s", routerStartBound, p.Output.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop sends SIGTERM to the router's process group, then SIGKILL if it
// has not exited after a grace period.
func (p *routerProc) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

// kill ends the router's process group with SIGKILL: no shutdown runs.
func (p *routerProc) kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// restartableRouterSpec is the spec of a router that another can replace:
// a fixed free loopback address and runtime root and state directories of
// the test's own, so a router started again from it takes over the first
// one's address, runtime and journals.
func restartableRouterSpec(t testing.TB, binDir, upstream string) routerSpec {
	t.Helper()
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return routerSpec{binDir: binDir, upstream: upstream, runtimeDir: t.TempDir(), stateDir: t.TempDir(), listen: addr}
}

// forEachRouterStop runs test as a parallel subtest once for each way a
// router ends before another takes its place: "sigterm" (stop, its
// shutdown runs) and "kill" (kill -9, nothing of it runs).
func forEachRouterStop(t *testing.T, test func(t *testing.T, stop func(*routerProc))) {
	t.Helper()
	for _, tc := range []struct {
		name string
		stop func(*routerProc)
	}{{"sigterm", (*routerProc).stop}, {"kill", (*routerProc).kill}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			test(t, tc.stop)
		})
	}
}

// cleanEnv is the test process environment without variables that would
// leak the developer's Codex, OpenAI or router settings into a run.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "CODEX_"), strings.HasPrefix(name, "OPENAI_"),
			strings.HasPrefix(name, "HPATCH_"), name == "MOCK_KEY":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// codexConfig selects a CODEX_HOME config template from testdata/e2e.
type codexConfig string

const (
	// configCatalog: custom provider + model_catalog_json with
	// use_responses_lite and tool_mode code_mode_only (FACTS §1.3).
	configCatalog codexConfig = "catalog"
	// configBundledSol: bundled slug gpt-5.6-sol (same layout, no catalog).
	configBundledSol codexConfig = "bundled-sol"
	// configGPT55: bundled gpt-5.5; with --enable code_mode --enable
	// code_mode_only it sends the top-level tools layout (FACTS §1.1).
	configGPT55 codexConfig = "gpt55"
)

// writeCodexHome makes a throw-away CODEX_HOME whose provider points at
// baseURL (".../v1").
func writeCodexHome(t testing.TB, cfg codexConfig, baseURL string) string {
	t.Helper()
	return writeCodexHomeCatalog(t, cfg, "", baseURL)
}

// writeCodexHomeCatalog is writeCodexHome with another catalog file from
// testdata/e2e ("" is catalog-lite-code-mode-only.json).
func writeCodexHomeCatalog(t testing.TB, cfg codexConfig, catalog, baseURL string) string {
	t.Helper()
	if cfg == "" {
		cfg = configCatalog
	}
	home := t.TempDir()
	writeCodexConfigCatalog(t, home, cfg, catalog, baseURL)
	return home
}

// writeCodexConfig (re)writes home/config.toml from the cfg template, e.g.
// to point an existing CODEX_HOME at a restarted router.
func writeCodexConfig(t testing.TB, home string, cfg codexConfig, baseURL string) {
	t.Helper()
	writeCodexConfigCatalog(t, home, cfg, "", baseURL)
}

func writeCodexConfigCatalog(t testing.TB, home string, cfg codexConfig, catalog, baseURL string) {
	t.Helper()
	if catalog == "" {
		catalog = "catalog-lite-code-mode-only.json"
	}
	tmpl, err := os.ReadFile(repoPath(t, "testdata", "e2e", "config-"+string(cfg)+".toml"))
	if err != nil {
		t.Fatalf("e2e: codex config %q: %v", cfg, err)
	}
	text := strings.NewReplacer(
		"@BASE_URL@", baseURL,
		"@CATALOG@", repoPath(t, "testdata", "e2e", catalog),
	).Replace(string(tmpl))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// codexRun is the outcome of one `codex exec`.
type codexRun struct {
	Output   string // stdout and stderr
	ExitCode int
}

// runCodex runs `codex exec --skip-git-repo-check ARGS… PROMPT` in
// workspace with stdin /dev/null and codexEnv. The whole process group is
// killed if it outlives codexRunBound.
func runCodex(t testing.TB, codex, home, binDir, runtimeDir, workspace, prompt string, args ...string) codexRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), codexRunBound)
	defer cancel()
	argv := append(append([]string{"exec", "--skip-git-repo-check"}, args...), prompt)
	cmd := exec.CommandContext(ctx, codex, argv...)
	cmd.Dir = workspace
	cmd.Env = codexEnv(t, home, binDir, runtimeDir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return finishCodex(t, ctx, cmd)
}

// startCodex is runCodex on another goroutine, for a test that acts while
// Codex runs: the run arrives on the channel when Codex ends (a failure to
// run it, or a run that outlived codexRunBound, as exit code -1 with the
// error after its output). The whole process group is killed when the
// test ends first.
func startCodex(t testing.TB, codex, home, binDir, runtimeDir, workspace, prompt string, args ...string) <-chan codexRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), codexRunBound)
	t.Cleanup(cancel)
	argv := append(append([]string{"exec", "--skip-git-repo-check"}, args...), prompt)
	cmd := exec.CommandContext(ctx, codex, argv...)
	cmd.Dir = workspace
	cmd.Env = codexEnv(t, home, binDir, runtimeDir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	done := make(chan codexRun, 1)
	go func() {
		run, err := execCodex(ctx, cmd)
		if err != nil {
			run.ExitCode, run.Output = -1, run.Output+"\n("+err.Error()+")"
		}
		done <- run
	}()
	return done
}

// finishCodex runs a prepared `codex exec` (its own process group) and
// collects its output; the whole group is killed when it outlives ctx.
func finishCodex(t testing.TB, ctx context.Context, cmd *exec.Cmd) codexRun {
	t.Helper()
	run, err := execCodex(ctx, cmd)
	if err != nil {
		t.Fatalf("%v\n%s", err, run.Output)
	}
	return run
}

// execCodex is finishCodex without a test to fail, for a run on another
// goroutine: a failure to run codex, or a run that outlived ctx, is the
// error.
func execCodex(ctx context.Context, cmd *exec.Cmd) (codexRun, error) {
	var out testenv.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	// Codex may leave yielded sessions behind; reap the whole group.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	run := codexRun{Output: out.String()}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return run, fmt.Errorf("e2e: codex did not finish within %s", codexRunBound)
	case err == nil:
	case errors.As(err, &exitErr):
		run.ExitCode = exitErr.ExitCode()
	default:
		return run, fmt.Errorf("e2e: codex %s: %w", strings.Join(cmd.Args[1:], " "), err)
	}
	return run, nil
}

// routedCodex is a Codex CLI set up to reach the fake upstream through a
// router of its own: the binaries, the router, its runtime root and a
// CODEX_HOME (configCatalog) that points at it.
type routedCodex struct {
	codex, binDir, runtimeDir, home string
	router                          *routerProc
}

// startRoutedCodex finds Codex and the binaries, starts a router in front
// of up and writes a CODEX_HOME for it.
func startRoutedCodex(t *testing.T, up *routertest.Upstream) routedCodex {
	t.Helper()
	c := routedCodex{codex: codexBin(t), binDir: e2eBins.binDir(t), runtimeDir: t.TempDir()}
	c.router = startRouter(t, routerSpec{binDir: c.binDir, upstream: up.URL(), runtimeDir: c.runtimeDir})
	c.home = writeCodexHome(t, configCatalog, c.router.URL+"/v1")
	return c
}

// run is runCodex through c's router: `codex exec` in workspace.
func (c routedCodex) run(t *testing.T, workspace, prompt string, args ...string) codexRun {
	t.Helper()
	return runCodex(t, c.codex, c.home, c.binDir, c.runtimeDir, workspace, prompt, args...)
}

// codexEnv is the environment Codex runs in: the test's, without the
// developer's Codex/OpenAI/router settings, with a fresh HOME, XDG_* and
// TMPDIR (no cache, config or language server state of an earlier run;
// Codex refuses to create its PATH aliases, which tty exec sessions need,
// when CODEX_HOME lies inside TMPDIR, and the fresh TMPDIR does not hold
// it), CODEX_HOME=home, binDir (when set) first on PATH and
// HPATCH_RUNTIME_DIR=runtimeDir.
func codexEnv(t testing.TB, home, binDir, runtimeDir string) []string {
	t.Helper()
	path := os.Getenv("PATH")
	if binDir != "" {
		path = binDir + string(os.PathListSeparator) + path
	}
	return append(testenv.FreshHome(t).Environ(cleanEnv()), "CODEX_HOME="+home, "MOCK_KEY=sk-test", "PATH="+path,
		"HPATCH_RUNTIME_DIR="+runtimeDir)
}

// shellStep is the upstream step of a model `shell` call in the functions
// namespace, its input streamed in the given number of deltas.
func shellStep(callID string, deltas int, input string) routertest.Step {
	return routertest.Step{CustomToolCall: &routertest.CustomToolCall{
		Name: "shell", Namespace: "functions", CallID: callID, ID: "ctc_" + callID, Input: input}, Deltas: deltas}
}

// shellStepNoNamespace is shellStep with the call in no namespace, as a
// model names the router's tools on the flat layout.
func shellStepNoNamespace(callID string, deltas int, input string) routertest.Step {
	step := shellStep(callID, deltas, input)
	step.CustomToolCall.Namespace = ""
	return step
}

// hpatchStep is the upstream step of a model `hpatch` call in the
// functions namespace, its input streamed in the given number of deltas.
func hpatchStep(callID string, deltas int, input string) routertest.Step {
	return routertest.Step{CustomToolCall: hpatchCall(callID, input), Deltas: deltas}
}
