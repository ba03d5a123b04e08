//go:build linux

package main

import (
	"os/exec"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
)

// The helper stays tiny: it links the snapshot contract and the standard
// library's basics, never the router, the shell interpreter, the retain
// store, networking or logging.
func TestHelperStaysTiny(t *testing.T) {
	out, err := exec.Command(testenv.NeedTool(t, "go"), "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"mvdan.cc/", "hpatch-router/router", "hpatch-router/retain", "hpatch-router/worker/hread",
			"net/http", "log/slog", "encoding/json", "github.com/"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("the helper links %s", dep)
			}
		}
		if dep == "hpatch-router/worker" {
			t.Error("the helper links the worker package")
		}
	}
}
