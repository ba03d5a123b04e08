//go:build linux

package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/internal/buildstamp"
	"hpatch-router/internal/testenv"
	"hpatch-router/worker/snapshot"
)

// TestHelperInfoFlags: `shell --version` and `shell --help` answer only
// as the sole argument, which no carrier ever is (each has an
// interpreter and a body); with anything after them the command is a
// shell call as before and goes to the runtime checks.
func TestHelperInfoFlags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "shell")
	if err := testenv.Build(bin, "hpatch-router/cmd/shell-helper", "-ldflags=-s -w -X main.version=v1-3-g30813ed"); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HPATCH_RUNTIME_DIR=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	out, code := run("--version")
	st, err := buildstamp.Parse(out)
	if code != 0 || err != nil || st.Commit != "30813ed" || st.Protocol != snapshot.Protocol {
		t.Fatalf("--version: %q exit %d (%+v, %v)", out, code, st, err)
	}
	if out, code := run("--help"); code != 0 || !strings.Contains(out, "shell [-e] INTERPRETER [OPTIONS…] BODY") {
		t.Fatalf("--help: %q exit %d", out, code)
	}
	// A carrier whose interpreter is given --help, or whose body is
	// "--version", is a shell call: here it stops at the thread check.
	for _, args := range [][]string{{"bash", "--help"}, {"--help", "echo hi"}, {"python3", "--version"}} {
		if out, code := run(args...); code != snapshot.ExitNotFound || !strings.Contains(out, "CODEX_THREAD_ID") {
			t.Errorf("shell %q = %q exit %d; want the shell call's refusal", args, out, code)
		}
	}
}
