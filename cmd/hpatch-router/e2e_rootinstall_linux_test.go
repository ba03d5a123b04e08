package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/internal/testuser"
	"hpatch-router/router/routertest"
)

// rootInstallSteps is one call of every carrier kind: the worker with
// Bash, python3 reading its body on fd 3 (retained), a direct carrier,
// hread and hgrep in the worker, an hpatch edit of the retained script
// and a rerun of it.
func rootInstallSteps() []routertest.Step {
	return []routertest.Step{
		shellStep("call_ri_bash", 2, "for w in one two; do\n  echo \"w=$w\"\ndone | tr a-z A-Z\n"),
		shellStep("call_ri_py", 2, "#!python3\ntotal = 1 + 1\nimport sys; print('total', total, sys.argv[0])\n"),
		shellStepNoNamespace("call_ri_direct", 1, "uname -s\n"),
		shellStep("call_ri_hread", 1, "hread notes.txt\n"),
		shellStep("call_ri_hgrep", 1, "hgrep second notes.txt\n"),
		hpatchStep("call_ri_edit", 2, "in @shell/call_ri_py\ntype 2:cd58 \"total = 40 + 2\"\n"),
		shellStep("call_ri_rerun", 1, "#!script=@shell/call_ri_py"),
		{Message: "root install done"},
	}
}

var rootInstallWant = []callExpect{
	{CallID: "call_ri_bash", Output: []string{`W=ONE\nW=TWO\n`, `"exit_code":0`}},
	{CallID: "call_ri_py", Output: []string{`total 2 /dev/fd/3\n`, `"retained":true`, `"script_ref":"@shell/call_ri_py"`, `"exit_code":0`}},
	{CallID: "call_ri_direct", Output: []string{"Linux", `"exit_code":0`}},
	{CallID: "call_ri_hread", Output: []string{"1:a793 first", "2:1636 second", `"exit_code":0`}},
	{CallID: "call_ri_hgrep", Output: []string{`:2:1636 second`, `"exit_code":0`}},
	{CallID: "call_ri_edit", Output: []string{"2:e546 total = 40 + 2"}},
	{CallID: "call_ri_rerun", Output: []string{`total 42 /dev/fd/3\n`, `"exit_code":0`}},
}

// sandboxModes are Codex's three sandbox modes as `codex exec` flags.
var sandboxModes = []struct{ name, flag string }{
	{"read-only", ""}, // the default
	{"workspace-write", "workspace-write"},
	{"no-sandbox", "danger-full-access"},
}

func sandboxArgs(flag string) []string {
	if flag == "" {
		return nil
	}
	return []string{"--sandbox", flag}
}

// TestE2ERootInstall (issue 24): hpatch-router and shell installed by
// root into a root-owned directory, used by a throwaway user whose passwd
// login shell is /bin/sh, with the real Codex in each sandbox mode. Inside
// Codex's Linux sandbox root's files show the overflow uid (65534); every
// carrier kind must still run. In read-only mode the runtime root is the
// default one in /tmp (a root-owned parent, which also shows 65534
// there). Needs root (useradd, chown); skips locally without it and fails
// under CI=true.
func TestE2ERootInstall(t *testing.T) {
	codex := codexBin(t)
	testenv.NeedTool(t, "python3")
	testenv.NeedTool(t, "rg")
	for _, mode := range sandboxModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			bin := rootInstall(t)
			u := testuser.New(t, "/bin/sh")
			env := []string{"PATH=" + bin + ":" + os.Getenv("PATH")}
			if mode.flag != "" {
				env = append(env, "TMPDIR="+u.Dir(t, "tmp"))
			} else {
				// The default root below /tmp: the router creates it;
				// remove it and what it holds after the test.
				t.Cleanup(func() { os.RemoveAll(filepath.Join("/tmp", "hpatch-router-"+strconv.Itoa(u.UID))) })
			}
			up := routertest.NewUpstream(t, routertest.Scenario{Steps: rootInstallSteps()})
			rp := startRouter(t, routerSpec{binDir: bin, upstream: up.URL(), stateDir: u.Dir(t, "state"), as: &u, env: env})
			home := u.Dir(t, "codex")
			writeCodexConfig(t, home, configCatalog, rp.URL+"/v1")
			u.Own(t, home)
			ws := u.Dir(t, "ws")
			if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("first\nsecond\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			u.Own(t, ws)
			run := runCodexAs(t, u, codex, home, ws, env, sandboxArgs(mode.flag)...)
			if run.ExitCode != 0 || !strings.Contains(run.Output, "root install done") {
				t.Fatalf("codex exit %d without the final answer:\n%s", run.ExitCode, run.Output)
			}
			posts := up.Posts()
			checkReplay(t, posts)
			for _, ce := range rootInstallWant {
				checkCallOutput(t, posts, ce)
			}
		})
	}
}

// TestE2ERootInstallAttacks: a root-owned install tampered with after the
// router started, as root or another user could, is refused by the helper
// with its one-line reason and status 126, in Codex's default sandbox
// (where the owner shows as 65534) and without a sandbox: the router
// binary given to another ordinary user, made group-writable, or replaced
// by another file.
func TestE2ERootInstallAttacks(t *testing.T) {
	codex := codexBin(t)
	for _, attack := range []struct {
		name string
		do   func(t *testing.T, exe string, other testuser.User)
		// want is the refusal after "launcher target EXE ", per mode.
		want func(u, other testuser.User, sandboxed bool) string
	}{
		{"owned by another ordinary user", func(t *testing.T, exe string, other testuser.User) {
			must(t, os.Chown(exe, other.UID, other.GID))
		}, func(u, other testuser.User, sandboxed bool) string {
			if sandboxed {
				return "is owned by uid 65534 inside Codex's sandbox (root's when the router started, but its owner or mode changed since), neither you (uid " + strconv.Itoa(u.UID) + ") nor root; fix it and restart hpatch-router"
			}
			return "is owned by uid " + strconv.Itoa(other.UID) + ", neither you (uid " + strconv.Itoa(u.UID) + ") nor root; fix it and restart hpatch-router"
		}},
		{"group-writable", func(t *testing.T, exe string, _ testuser.User) {
			must(t, os.Chmod(exe, 0o775))
		}, func(testuser.User, testuser.User, bool) string {
			return "is writable by group or others (chmod go-w it); fix it and restart hpatch-router"
		}},
		{"replaced after the router started", func(t *testing.T, exe string, _ testuser.User) {
			data, err := os.ReadFile(exe)
			must(t, err)
			must(t, os.WriteFile(exe+".new", data, 0o755))
			must(t, os.Rename(exe+".new", exe))
		}, func(testuser.User, testuser.User, bool) string {
			return "is not the file the router registered (replaced or changed since it started); restart hpatch-router"
		}},
	} {
		for _, mode := range []struct{ name, flag string }{sandboxModes[0], sandboxModes[2]} {
			t.Run(attack.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				bin := rootInstall(t)
				u, other := testuser.New(t, "/bin/sh"), testuser.New(t, "/bin/sh")
				env := []string{"TMPDIR=" + u.Dir(t, "tmp"), "PATH=" + bin + ":" + os.Getenv("PATH")}
				up := routertest.NewUpstream(t, routertest.Scenario{Steps: []routertest.Step{
					shellStep("call_attack", 2, "echo must not run\necho twice\n"),
					{Message: "attack done"},
				}})
				rp := startRouter(t, routerSpec{binDir: bin, upstream: up.URL(), stateDir: u.Dir(t, "state"), as: &u, env: env})
				exe := filepath.Join(bin, "hpatch-router")
				attack.do(t, exe, other)
				home := u.Dir(t, "codex")
				writeCodexConfig(t, home, configCatalog, rp.URL+"/v1")
				u.Own(t, home)
				run := runCodexAs(t, u, codex, home, u.Dir(t, "ws"), env, sandboxArgs(mode.flag)...)
				if run.ExitCode != 0 || !strings.Contains(run.Output, "attack done") {
					t.Fatalf("codex exit %d without the final answer:\n%s", run.ExitCode, run.Output)
				}
				line := "shell: launcher target " + exe + " " + attack.want(u, other, mode.flag == "") + `\n`
				checkCallOutput(t, up.Posts(), callExpect{CallID: "call_attack", Output: []string{`"output":"` + line + `"`, `"exit_code":126`}})
			})
		}
	}
}

// rootInstall runs the real `make install PREFIX=DIR` as root (the test
// runs as root; each call builds into its own BIN, so parallel calls do
// not share output files) into a fresh root-owned 0755 DIR every user can
// traverse (the test's t.TempDir() is private to root, so DIR is made
// beside it), checks that both files are root's 0755 and returns DIR/bin.
func rootInstall(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		testenv.Missing(t, "root", "a root-owned install")
	}
	testenv.NeedTool(t, "make")
	prefix, err := os.MkdirTemp("", "hpatch-root-prefix-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(prefix) })
	must(t, os.Chmod(prefix, 0o755))
	for p := filepath.Dir(prefix); p != "/"; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o001 == 0 {
			t.Fatalf("%s cannot be traversed by other users (%v); set TMPDIR to a directory they can", p, err)
		}
	}
	cmd := exec.Command("make", "-C", repoPath(t), "install", "PREFIX="+prefix, "BIN="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make install PREFIX=%s: %v\n%s", prefix, err, out)
	}
	dir := filepath.Join(prefix, "bin")
	for _, name := range []string{"", "hpatch-router", "shell"} {
		var st syscall.Stat_t
		must(t, syscall.Stat(filepath.Join(dir, name), &st))
		if st.Uid != 0 || st.Mode&0o777 != 0o755 {
			t.Fatalf("%s: uid %d mode %o, want root's 0755", filepath.Join(dir, name), st.Uid, st.Mode&0o777)
		}
	}
	return dir
}

// TestE2EDoctorInCodexSandbox (issue 24): doctor runs a worker command
// the way Codex does, inside `codex sandbox`, through the router's
// registered launcher. With a root-owned install (which shows uid 65534
// inside the sandbox) it passes; with the installed binary made
// group-writable after the router started, doctor shows the helper's
// refusal and its fix. Its probe thread directory is gone afterwards.
func TestE2EDoctorInCodexSandbox(t *testing.T) {
	codex := codexBin(t)
	bin := rootInstall(t)
	u := testuser.New(t, "/bin/sh")
	env := []string{"TMPDIR=" + u.Dir(t, "tmp"), "PATH=" + bin + ":" + filepath.Dir(codex) + ":" + os.Getenv("PATH")}
	up := routertest.NewUpstream(t, routertest.Scenario{})
	rp := startRouter(t, routerSpec{binDir: bin, upstream: up.URL(), stateDir: u.Dir(t, "state"), as: &u, env: env})
	home := u.Dir(t, "codex")
	writeCodexConfig(t, home, configCatalog, rp.URL+"/v1")
	u.Own(t, home)
	doctor := func() check {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "hpatch-router"), "doctor", "--json", "--router", rp.URL)
		cmd.Env = append(u.Env(cleanEnv()...), append(env, "CODEX_HOME="+home)...)
		cmd.SysProcAttr = u.SysProcAttr()
		cmd.Dir = u.Home
		out, _ := cmd.Output() // exit 1 when a required check fails
		var checks []check
		if err := json.Unmarshal(out, &checks); err != nil {
			t.Fatalf("doctor --json: %v\n%s", err, out)
		}
		for _, c := range checks {
			if c.Name == "sandbox" {
				return c
			}
		}
		t.Fatalf("doctor has no sandbox check:\n%s", out)
		return check{}
	}
	if c := doctor(); !c.OK || !strings.Contains(c.Detail, "ran through /bin/sh in `codex sandbox`") {
		t.Errorf("root-owned install: %+v", c)
	}
	must(t, os.Chmod(filepath.Join(bin, "hpatch-router"), 0o775))
	c := doctor()
	if c.OK || !strings.Contains(c.Detail, "refused inside Codex's sandbox: shell: launcher target "+filepath.Join(bin, "hpatch-router")+" is writable by group or others") ||
		c.Fix != "fix it and restart hpatch-router" {
		t.Errorf("group-writable binary: %+v", c)
	}
	root := filepath.Join(u.Home, "tmp", "hpatch-router-"+strconv.Itoa(u.UID))
	if left, _ := filepath.Glob(filepath.Join(root, "hpatch-doctor-*")); len(left) > 0 {
		t.Errorf("doctor left its probe threads: %q", left)
	}
}
