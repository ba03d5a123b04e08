//go:build linux

package worker_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Guards environment hygiene: the worker is a separate exec of the router
// binary with the helper's environment, and it adds and removes nothing —
// there are no private plumbing variables. A variable only this process
// (standing in for the router) has, and the router's upstream URL and
// auth, never reach a script, through Bash (an external command's
// environment) or another interpreter. Without the promise a variable the
// worker set for itself (a runtime path, a token) would show up in the
// diff below.
func TestScriptEnvironmentIsTheHelpers(t *testing.T) {
	const secret = "router-only-secret-7f3a"
	t.Setenv("HPATCH_TEST_ROUTER_ONLY", secret)
	t.Setenv("HPATCH_UPSTREAM", "https://upstream.invalid/"+secret)
	e := newEnv(t)
	wd, err := os.Getwd()
	must(t, err)
	// PWD names the directory the helper runs in, as a shell sets it.
	// PYTHONCOERCECLOCALE=0: in the C locale (no LANG, as under `su - user`)
	// Python would otherwise add LC_CTYPE=C.UTF-8 to its own environment.
	env := append(e.environ(), "MY_CODEX_VAR=kept", "WITH_NEWLINE=a\nb", "PYTHONCOERCECLOCALE=0", "PWD="+wd)
	var given []string
	for i, kv := range env {
		if !strings.Contains(kv, secret) && (!strings.HasPrefix(kv, "PWD=") || i == len(env)-1) {
			given = append(given, kv)
		}
	}
	runEnv := func(args ...string) []string {
		t.Helper()
		cmd := e.command(t.Context(), args...)
		cmd.Env = given
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if strings.Contains(string(out), secret) {
			t.Fatalf("%v: the router's secret reached the script", args)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		slices.Sort(got)
		return got
	}
	want := slices.Clone(given)
	slices.Sort(want)
	envBin, err := exec.LookPath("env")
	must(t, err)
	cd := runEnv("bash", "cd / && "+envBin+" -0")
	if !slices.Contains(cd, "PWD=/") {
		t.Errorf("after cd, PWD is not the new directory: %q", cd)
	}
	if got := runEnv("bash", envBin+" -0"); !slices.Equal(got, want) {
		t.Errorf("bash: an external command's environment differs from the helper's:\n%s", envDiff(want, got))
	}
	if py := realPython(); py != "" { // not a pyenv shim, which edits the environment
		body := "import os, sys\nsys.stdout.write(''.join(k + '=' + v + '\\0' for k, v in os.environ.items()))\n"
		if got := runEnv(py, body); !slices.Equal(got, want) {
			t.Errorf("python3: the script's environment differs from the helper's:\n%s", envDiff(want, got))
		}
	}
	if os.Getenv("HPATCH_TEST_ROUTER_ONLY") != secret {
		t.Fatal("setup: the test process lost its own variable")
	}
}

func envDiff(want, got []string) string {
	var b strings.Builder
	for _, kv := range want {
		if !slices.Contains(got, kv) {
			b.WriteString("- " + kv + "\n")
		}
	}
	for _, kv := range got {
		if !slices.Contains(want, kv) {
			b.WriteString("+ " + kv + "\n")
		}
	}
	return b.String()
}
