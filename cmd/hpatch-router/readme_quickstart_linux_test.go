package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
)

// TestREADMEQuickStart runs every command of README's Quick start (and
// Set up's make run) in a throwaway HOME, in order, and checks that each
// prints what README shows under it (matchShown: "…" for what varies, ~
// for the HOME). The only changes to the commands are for isolation: the
// router listens on a free port and forwards to a scripted upstream (so
// codex-config, doctor and make run get that address), and Codex's
// step gets an API key in auth.json, as `codex login` would leave a
// login. Codex's step runs when Codex is installed (a skip, or a failure
// under CI=true, otherwise), after every other step has run.
func TestREADMEQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the router through make")
	}
	testenv.NeedTool(t, "make")
	testenv.NeedTool(t, "bash")
	var setup []string
	for _, ex := range readmeExamples(readmeSection(t, "## Set up")) {
		setup = append(setup, ex.cmd)
	}
	if !slices.Equal(setup, []string{"make run", "make test"}) {
		t.Fatalf("Set up shows %q; want exactly make run (run here) and make test (run by .ci/run)", setup)
	}
	steps := readmeExamples(readmeSection(t, "## Quick start"))
	home := testenv.FreshHome(t)
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
		shellStep("call_quickstart", 1, "#!python3\nimport sys\nprint('Python', sys.version.split()[0])\n"),
		{Message: "Your Python version is in the output above."},
	}})
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := home.Dir + "/go/bin:" + filepath.Dir(testenv.NeedTool(t, "go")) + ":/usr/bin:/bin"
	env := append(home.Environ(cleanEnv()), goEnvVars(t, "GOCACHE", "GOMODCACHE")...)
	env = append(env, "PATH="+base)
	shown := func(s string) string {
		s = strings.ReplaceAll(s, "~/", home.Dir+"/")
		s = strings.ReplaceAll(s, "127.0.0.1:8080", addr)
		return strings.ReplaceAll(s, "https://chatgpt.com/backend-api/codex", up.URL())
	}
	isolate := strings.NewReplacer(
		"hpatch-router codex-config", "hpatch-router codex-config --listen "+addr,
		"hpatch-router doctor", "hpatch-router doctor --router http://"+addr)
	var router *makeRun
	var codexStep *readmeExample
	for i, ex := range steps {
		switch {
		case ex.cmd == "make run":
			router = startMakeRunAt(t, env, addr, up.URL())
			defer func(want string) {
				out := router.stop()
				t.Logf("$ make run\n%s", out)
				if err := matchShown(shown(want), out); err != nil {
					t.Errorf("make run: %v", err)
				}
				// README: "No WARN line follows" (the helper fits).
				if strings.Contains(out, "level=WARN") {
					t.Errorf("make run after make install warns:\n%s", out)
				}
			}(ex.want)
		case strings.HasPrefix(ex.cmd, "codex "):
			codexStep = &steps[i]
		case ex.cmd == "make install" || strings.HasPrefix(ex.cmd, "mkdir -p ~/.codex ") || ex.cmd == "hpatch-router doctor":
			cmd := exec.Command("bash", "-c", isolate.Replace(ex.cmd))
			cmd.Dir, cmd.Env = repoPath(t), env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", ex.cmd, err, out)
			}
			t.Logf("$ %s\n%s", ex.cmd, out)
			if err := matchShown(shown(ex.want), string(out)); err != nil {
				t.Errorf("%s: %v", ex.cmd, err)
			}
		default:
			t.Fatalf("README's quick start shows a command this test does not run: %s", ex.cmd)
		}
	}
	if router == nil || codexStep == nil {
		t.Fatalf("the quick start lacks make run or the Codex session")
	}
	t.Run("first Codex session", func(t *testing.T) {
		codex := codexBin(t)
		workspace := t.TempDir()
		git := exec.Command("git", "init", "-q", workspace)
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		// What `codex login --with-api-key` leaves; the upstream takes any.
		must(t, os.WriteFile(filepath.Join(home.Dir, ".codex", "auth.json"), []byte(`{"OPENAI_API_KEY":"sk-test"}`), 0o600))
		ctx, cancel := context.WithTimeout(context.Background(), codexRunBound)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-c", strings.Replace(codexStep.cmd, "codex ", `"$CODEX" `, 1)+" </dev/null")
		cmd.Dir = workspace
		cmd.Env = append(env, "CODEX="+codex)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		run := finishCodex(t, ctx, cmd)
		t.Logf("$ %s\n%s", codexStep.cmd, run.Output)
		if run.ExitCode != 0 {
			t.Fatalf("%s: exit %d\n%s", codexStep.cmd, run.ExitCode, run.Output)
		}
		if err := matchShown(shown(codexStep.want), run.Output); err != nil {
			t.Error(err)
		}
		posts := up.Posts()
		if len(posts) < 2 || !strings.Contains(string(posts[len(posts)-1].Body), "Python 3.") {
			t.Errorf("the shell call's output (Python 3.…) did not reach the model; %d requests", len(posts))
		}
	})
}

// startMakeRunAt is startMakeRun on a given address and upstream.
func startMakeRunAt(t *testing.T, env []string, addr, upstream string) *makeRun {
	t.Helper()
	return startMakeRunArgs(t, env, addr, "LISTEN="+addr, "UPSTREAM="+upstream)
}
