//go:build linux

package worker_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Guards the start-up of both images every shell call starts: the helper,
// and the router binary as the worker, where each package initialiser
// runs before the worker checks anything. Our own packages, the main
// packages included (the trace names those "main"), keep their tables in
// code (switches, not package-level maps, slices or compiled patterns),
// so none of them has initialisation work (the runtime reports only
// packages that have).
func TestWorkerStartRunsNoInitialiserOfOurs(t *testing.T) {
	for _, image := range []struct{ name, path string }{{"router binary", built.router}, {"helper", built.helper}} {
		t.Run(image.name, func(t *testing.T) {
			cmd := exec.Command(image.path, "bash", "echo hi")
			cmd.Args[0] = "shell"
			cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "CODEX_THREAD_ID=") }),
				"GODEBUG=inittrace=1")
			out, _ := cmd.CombinedOutput()
			var ours []string
			for _, line := range strings.Split(string(out), "\n") {
				if f := strings.Fields(line); len(f) > 1 && f[0] == "init" && (f[1] == "main" || strings.HasPrefix(f[1], "hpatch-router")) {
					ours = append(ours, line)
				}
			}
			if !strings.Contains(string(out), "init runtime") {
				t.Fatalf("no init trace from the %s:\n%s", image.name, out)
			}
			if len(ours) > 0 {
				t.Fatalf("packages of ours run initialisation work at every start of the %s:\n%s", image.name, strings.Join(ours, "\n"))
			}
		})
	}
}
