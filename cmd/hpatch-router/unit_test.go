package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdUnitPathHoldsExecStart (issue 37): the shipped unit's PATH
// starts with the directory of its ExecStart, where make install put the
// helper too, so the router's startup helper check sees it; and the unit
// keeps no private /tmp (router and Codex share the runtime root).
func TestSystemdUnitPathHoldsExecStart(t *testing.T) {
	b, err := os.ReadFile(repoPath(t, "deploy", "hpatch-router.service"))
	if err != nil {
		t.Fatal(err)
	}
	var exec, path string
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			exec = strings.Fields(v)[0]
		}
		if v, ok := strings.CutPrefix(line, "Environment=PATH="); ok {
			path = v
		}
		if strings.HasPrefix(line, "PrivateTmp=") {
			t.Errorf("the unit sets %s", line)
		}
	}
	if exec == "" || path == "" {
		t.Fatalf("ExecStart %q, PATH %q: want both", exec, path)
	}
	if first := strings.Split(path, ":")[0]; first != filepath.Dir(exec) {
		t.Errorf("PATH starts with %s, ExecStart is in %s", first, filepath.Dir(exec))
	}
}
