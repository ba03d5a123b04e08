//go:build linux

package worker_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Guards the worker's start-up: every shell call starts the router
// binary, and each package initialiser runs before the worker checks
// anything. Our own packages keep their tables in code (switches, not
// package-level maps, slices or compiled patterns), so none of them has
// initialisation work (the runtime reports only packages that have).
func TestWorkerStartRunsNoInitialiserOfOurs(t *testing.T) {
	cmd := exec.Command(built.router, "bash", "echo hi")
	cmd.Args[0] = "shell"
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "CODEX_THREAD_ID=") }),
		"GODEBUG=inittrace=1")
	out, _ := cmd.CombinedOutput()
	var ours []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" && strings.HasPrefix(f[1], "hpatch-router") {
			ours = append(ours, line)
		}
	}
	if !strings.Contains(string(out), "init runtime") {
		t.Fatalf("no init trace from the router binary:\n%s", out)
	}
	if len(ours) > 0 {
		t.Fatalf("packages of ours run initialisation work at every worker start:\n%s", strings.Join(ours, "\n"))
	}
}
