package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/internal/testuser"
	"hpatch-router/router/routertest"
)

// loginShellSteps: a python3 body reading stdin (through a #!cmd=
// template), a multi-line Bash body, a #!cmd= template whose own text is
// Bash only (process substitution: it runs because direct and template
// carriers pin bash), and a rerun of the retained python script.
var loginShellSteps = []routertest.Step{
	shellStep("call_py", 2, "#!python3\n#!cmd=printf 'one\\ntwo\\n' | {.}\nimport sys\nlines = sys.stdin.read().split()\nprint('py', lines, \"it's $HOME `x`\")\n"),
	shellStep("call_bash", 2, "set -e\nx='a b'\nprintf '%s|' \"$x\" \"it's\" '$HOME'\necho\nfor i in 1 2; do echo \"n$i\"; done\n"),
	shellStep("call_tmpl", 1, "#!cmd=cat <(printf 'via bash\\n') | {.}\nread -r line\necho \"tmpl: $line\"\n"),
	shellStep("call_rerun", 1, "#!script=@shell/call_py"),
	{Message: "final answer"},
}

// loginShellWant is what each call's output must hold.
var loginShellWant = map[string]string{
	"call_py":    `"output":"py ['one', 'two'] it's $HOME ` + "`x`" + `\n"`,
	"call_bash":  `"output":"a b|it's|$HOME|\nn1\nn2\n"`,
	"call_tmpl":  `"output":"tmpl: via bash\n"`,
	"call_rerun": `"output":"py ['one', 'two'] it's $HOME ` + "`x`" + `\n"`,
}

// TestE2ELoginShells runs the real Codex and router as throwaway users
// whose passwd login shell is /bin/sh (dash on Debian), zsh and fish
// (Codex falls back to bash), with the runtime root left to the default
// rule, plus one whose root is $XDG_RUNTIME_DIR/hpatch-router on a tmpfs
// as logind mounts it: every carrier must run byte-exact whatever shell
// Codex picks, in Codex's default read-only sandbox. Needs root (useradd);
// locally without it the test skips, under CI=true it fails.
func TestE2ELoginShells(t *testing.T) {
	codex := codexBin(t)
	testenv.NeedTool(t, "python3")
	for _, c := range []struct {
		name, login string
		xdg         bool
	}{
		{"sh", "/bin/sh", false},
		{"zsh", "/usr/bin/zsh", false},
		{"fish", "/usr/bin/fish", false},
		{"bash-xdg-runtime-dir", "/bin/bash", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u := testuser.New(t, c.login)
			bin := userBinaries(t, u)
			env := []string{"TMPDIR=" + u.Dir(t, "tmp"), "PATH=" + bin + ":" + os.Getenv("PATH")}
			if c.xdg {
				env = append(env, "XDG_RUNTIME_DIR="+userTmpfs(t, u))
			}
			up := routertest.NewUpstream(t, routertest.Scenario{Steps: loginShellSteps})
			rp := startRouter(t, routerSpec{binDir: bin, upstream: up.URL(), stateDir: u.Dir(t, "state"), as: &u, env: env})
			home := u.Dir(t, "codex")
			writeCodexConfig(t, home, configCatalog, rp.URL+"/v1")
			u.Own(t, home)
			run := runCodexAs(t, u, codex, home, u.Dir(t, "ws"), env)
			t.Logf("codex output (exit %d):\n%s", run.ExitCode, run.Output)
			if run.ExitCode != 0 || !strings.Contains(run.Output, "final answer") {
				t.Fatalf("codex exit %d without the final answer", run.ExitCode)
			}
			posts := up.Posts()
			checkReplay(t, posts)
			for id, want := range loginShellWant {
				checkCallOutput(t, posts, callExpect{CallID: id, Output: []string{want, `"exit_code":0`}})
			}
			logShells(t, run.Output)
			root := filepath.Join(u.Home, "tmp", "hpatch-router-"+strconv.Itoa(u.UID))
			if c.xdg {
				root = filepath.Join(envValue(env, "XDG_RUNTIME_DIR"), "hpatch-router")
			}
			if fi, err := os.Lstat(root); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 || fi.Sys().(*syscall.Stat_t).Uid != uint32(u.UID) {
				t.Errorf("runtime root %s: %v %v; want the user's 0700 directory by the default rule", root, fi, err)
			}
		})
	}
}

// userBinaries copies the freshly built router and helper into a
// directory of u's (the test's build directory is private to root).
func userBinaries(t *testing.T, u testuser.User) string {
	t.Helper()
	src := e2eBins.binDir(t)
	dst := u.Dir(t, "bin")
	for _, name := range []string{"hpatch-router", "shell"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	u.Own(t, dst)
	return dst
}

// userTmpfs mounts a small tmpfs owned by u, mode 0700, as logind mounts
// /run/user/<uid>, and returns its path.
func userTmpfs(t *testing.T, u testuser.User) string {
	t.Helper()
	dir := u.Dir(t, "run")
	opts := "size=16m,mode=0700,uid=" + strconv.Itoa(u.UID) + ",gid=" + strconv.Itoa(u.GID)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// runCodexAs runs `codex exec ARGS…` as u in workspace with u's
// environment plus env, CODEX_HOME=home and the fake provider's key.
func runCodexAs(t *testing.T, u testuser.User, codex, home, workspace string, env []string, args ...string) codexRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), codexRunBound)
	defer cancel()
	argv := append(append([]string{"exec", "--skip-git-repo-check"}, args...), "run the checks")
	cmd := exec.CommandContext(ctx, codex, argv...)
	cmd.Dir = workspace
	cmd.Env = append(u.Env(cleanEnv()...), append(env, "CODEX_HOME="+home, "MOCK_KEY=sk-test")...)
	cmd.SysProcAttr = u.SysProcAttr()
	return finishCodex(t, ctx, cmd)
}

// shellLine is how Codex prints each command it ran: the shell path, -c
// and the command.
var shellLine = regexp.MustCompile(`(?m)^(\S+) -c "?(.*)$`)

// logShells logs which shell Codex ran each carrier with (for the
// closing table) and checks that the Bash-only template ran under bash.
func logShells(t *testing.T, output string) {
	t.Helper()
	for _, m := range shellLine.FindAllStringSubmatch(output, -1) {
		cmd := m[2]
		if len(cmd) > 60 {
			cmd = cmd[:60] + "…"
		}
		t.Logf("ran with %s: %s", m[1], cmd)
		if strings.Contains(m[2], "cat <(printf") && filepath.Base(m[1]) != "bash" {
			t.Errorf("the Bash template ran under %s, not bash", m[1])
		}
	}
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}
