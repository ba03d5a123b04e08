package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"hpatch-router/router/routertest"
	"hpatch-router/router/routertest/appserver"
)

// scenario is one capture: how Codex is configured and run against the
// fake upstream.
type scenario struct {
	name, about string
	config      string // testdata/e2e/config-<config>.toml
	catalog     string // testdata/e2e/<catalog>; default catalog-lite-code-mode-only.json
	script      string // testdata/scenarios/capture/<script>.json; "" answers "done"
	version     string // "" (0.169.0), "0144" or "0147"
	runs        []run
}

// run is one Codex invocation: `codex exec ARGS…`, or an app-server
// session when app is set.
type run struct {
	args []string
	app  *appRun
}

func execRun(args ...string) run {
	return run{args: append([]string{"exec", "--skip-git-repo-check"}, args...)}
}

// scenarios mirrors the case table of the shared reproduce.sh, for the
// captures the router's tests read.
func scenarios() []scenario {
	codeMode := []string{"--enable", "code_mode", "--enable", "code_mode_only"}
	return []scenario{
		{name: "toplevel-exec", about: "gpt-5.5 + code mode flags: exec in top-level tools",
			config: "gpt55", script: "exec-hi-nons", runs: []run{execRun(append(codeMode, "run echo hi")...)}},
		{name: "cli-lite-exec", about: "catalog use_responses_lite: additional_tools layout + exec round trip",
			config: "catalog", script: "exec-env-ns", runs: []run{execRun("run env")}},
		{name: "cli-lite-only-flags", about: "use_responses_lite without tool_mode, code mode by flags",
			config: "catalog", catalog: "catalog-lite-only.json", runs: []run{execRun(append(codeMode, "say hi")...)}},
		{name: "cli-lite-no-codemode", about: "use_responses_lite, no code mode: plain tools in functions",
			config: "catalog", catalog: "catalog-lite-only.json", runs: []run{execRun("say hi")}},
		{name: "cli-codemode-not-lite", about: "code_mode_only without use_responses_lite: top-level tools",
			config: "catalog", catalog: "catalog-code-mode-only-not-lite.json", runs: []run{execRun("say hi")}},
		{name: "cli-bundled-sol", about: "bundled gpt-5.6-sol: functions + collaboration namespaces",
			config: "bundled-sol", runs: []run{execRun("say hi")}},
		{name: "model-switch-resume", about: "resume switching to gpt-5.6-sol: leading item order changes",
			config: "catalog", runs: []run{execRun("first turn"),
				execRun("resume", "--last", "-m", "gpt-5.6-sol", "second turn")}},
		{name: "incremental-tools", about: "resume adds an MCP server: appended additional_tools item",
			config: "catalog", runs: []run{execRun("first turn"), incrementalResume()}},
		{name: "openai-provider-ws", about: "built-in openai provider: WebSocket attempts, then HTTP",
			config: "openai-base-url", runs: []run{execRun("say hi")}},
		{name: "appserver-lite-exec", about: "app-server, catalog: layout + exec round trip",
			config: "catalog", script: "exec-env-ns", runs: []run{{app: &appRun{prompts: []string{"run env"}}}}},
		{name: "appserver-desktop-sol", about: "app-server as Codex Desktop, gpt-5.6-sol, two turns",
			config: "bundled-sol", runs: []run{{app: &appRun{client: "Codex Desktop", prompts: []string{"first turn", "second turn"}}}}},
		{name: "appserver-dynamic-tools", about: "app-server dynamicTools nested into exec's description",
			config: "catalog", runs: []run{{app: &appRun{experimental: true, dynamicTools: "dynamic-tools.json", prompts: []string{"first turn"}}}}},
		{name: "flat-0.144.0-cli", about: "Codex 0.144.0: exec flat in additional_tools",
			config: "bundled-sol", version: "0144", runs: []run{execRun("say hi")}},
		{name: "flat-0.144.0-appserver", about: "Codex 0.144.0 app-server: exec flat in additional_tools",
			config: "bundled-sol", version: "0144", runs: []run{{app: &appRun{prompts: []string{"say hi"}}}}},
		{name: "namespaced-0.147.0-cli", about: "Codex 0.147.0: exec inside the functions namespace",
			config: "bundled-sol", version: "0147", runs: []run{execRun("say hi")}},
	}
}

// record plays one scenario and replaces OUT/NAME with what was captured.
func record(ctx context.Context, o options, s scenario) error {
	codex := map[string]string{"": o.codex, "0144": o.codex0144, "0147": o.codex0147}[s.version]
	if codex == "" {
		fmt.Printf("%s: skipped (no Codex %s binary given)\n", s.name, s.version)
		return nil
	}
	sc := routertest.Scenario{}
	if s.script != "" {
		var err error
		if sc, err = routertest.LoadScenario(filepath.Join(o.repo, "testdata", "scenarios", "capture", s.script+".json")); err != nil {
			return err
		}
	}
	up, err := routertest.New(sc)
	if err != nil {
		return err
	}
	up.Start()
	defer up.Close()

	scratch, err := os.MkdirTemp("", "recapture-"+s.name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	home, ws, tmp := filepath.Join(scratch, "codex-home"), filepath.Join(scratch, "workspace"), filepath.Join(scratch, "tmp")
	for _, d := range []string{home, ws, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	if err := writeConfig(o.repo, s, home, up.URL()); err != nil {
		return err
	}
	// A private TMPDIR keeps CODEX_HOME outside the temp dir, so Codex sets
	// up its helper aliases as it does with a real ~/.codex.
	env := append(cleanEnv(), "CODEX_HOME="+home, "MOCK_KEY=sk-test", "TMPDIR="+tmp)
	var log bytes.Buffer
	for i, r := range s.runs {
		var err error
		if r.app != nil {
			err = r.app.drive(ctx, codex, ws, env, filepath.Join(o.repo, "testdata", "scenarios", "capture"), &log)
		} else {
			err = runExec(ctx, codex, ws, env, r.args, &log)
		}
		if err != nil {
			return fmt.Errorf("run %d: %w\n%s", i, err, log.String())
		}
	}
	for _, e := range up.Errors() {
		return fmt.Errorf("fake upstream: %w", e)
	}
	dir := filepath.Join(o.out, s.name)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := up.Dump(dir); err != nil {
		return err
	}
	logName := "codex.out"
	if s.runs[0].app != nil {
		logName = "appserver.jsonl"
	}
	if err := os.WriteFile(filepath.Join(dir, logName), log.Bytes(), 0o644); err != nil {
		return err
	}
	ver, _ := exec.CommandContext(ctx, codex, "--version").CombinedOutput()
	if err := os.WriteFile(filepath.Join(dir, "codex-version.txt"), ver, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d requests into %s\n", s.name, len(up.Requests()), dir)
	return nil
}

// incrementalResume is the second incremental-tools run: resume the
// thread with this program serving as an MCP server.
func incrementalResume() run {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	return execRun("-c", fmt.Sprintf("mcp_servers.mini.command=%q", self),
		"-c", `mcp_servers.mini.args=["mini-mcp"]`, "resume", "--last", "second turn")
}

// writeConfig fills the config template's @BASE_URL@ and @CATALOG@.
func writeConfig(repo string, s scenario, home, baseURL string) error {
	tmpl, err := os.ReadFile(filepath.Join(repo, "testdata", "e2e", "config-"+s.config+".toml"))
	if err != nil {
		return err
	}
	catalog := s.catalog
	if catalog == "" {
		catalog = "catalog-lite-code-mode-only.json"
	}
	abs, err := filepath.Abs(filepath.Join(repo, "testdata", "e2e", catalog))
	if err != nil {
		return err
	}
	text := strings.NewReplacer("@BASE_URL@", baseURL, "@CATALOG@", abs).Replace(string(tmpl))
	return os.WriteFile(filepath.Join(home, "config.toml"), []byte(text), 0o600)
}

// appRun is one `codex app-server` session (see package appserver).
type appRun struct {
	client       string // clientInfo.name; default "research-driver"
	experimental bool   // capabilities.experimentalApi
	dynamicTools string // file in the capture scenario dir, for thread/start
	prompts      []string
}

func (a *appRun) drive(ctx context.Context, codex, ws string, env []string, scenarioDir string, log *bytes.Buffer) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	s := appserver.Session{Codex: codex, Dir: ws, Env: env, ClientName: a.client, Experimental: a.experimental, Log: log}
	if a.dynamicTools != "" {
		raw, err := os.ReadFile(filepath.Join(scenarioDir, a.dynamicTools))
		if err != nil {
			return err
		}
		s.DynamicTools = raw
	}
	_, err := s.Run(ctx, a.prompts...)
	return err
}

// runExec runs one `codex …` with stdin /dev/null, appending its output
// and exit status to log.
func runExec(ctx context.Context, codex, ws string, env, args []string, log *bytes.Buffer) error {
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, args...)
	cmd.Dir, cmd.Env = ws, env
	cmd.Stdout, cmd.Stderr = log, log
	err := cmd.Run()
	if cmd.ProcessState != nil {
		fmt.Fprintf(log, "rc=%d\n", cmd.ProcessState.ExitCode())
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
