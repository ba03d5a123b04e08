package main

import (
	"slices"
	"testing"
)

// TestE2E plays every scenario in testdata/scenarios/e2e through the real
// Codex CLI: each is a subtest named after its file, run in parallel with
// its own upstream, router, ports, CODEX_HOME, workspace and runtime dir.
func TestE2E(t *testing.T) {
	codexBin(t)
	cases := loadCases(t, repoPath(t, "testdata", "scenarios", "e2e"))
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		c := cases[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Log(c.Description)
			res := runCase(t, c)
			checkCase(t, c, res)
		})
	}
}
