//go:build linux

package main

import (
	"fmt"
	"strings"

	"hpatch-router/plugins/registry"
)

// checkToolFiles loads the default tools directory as serve would: the
// declared tools it offers, or every problem that keeps a change out of
// service (a running router keeps its previous tools meanwhile). Advisory:
// shell and hpatch work either way.
func checkToolFiles(env doctorEnv) check {
	c := check{Name: "tool-files", Title: "declared tools (--tools-dir default) load"}
	dir := defaultToolsDir(serveEnv{getenv: env.getenv, homeDir: env.homeDir, uid: env.uid})
	if dir == "" {
		return c.skip("no XDG_CONFIG_HOME or home directory to find the tools directory in")
	}
	set, probs := registry.Load(dir, toolsLoadOptions(env.uid))
	if len(probs) > 0 {
		lines := make([]string, len(probs))
		for i, p := range probs {
			lines[i] = p.String()
		}
		c.Detail = fmt.Sprintf("%d problem(s): %s", len(probs), strings.Join(lines, " | "))
		c.Fix = "fix each problem (hpatch-router tools check lists them); a running router keeps its previous tools until the directory loads"
		return c
	}
	c.OK = true
	names := make([]string, 0, set.Len())
	for _, t := range set.Tools {
		names = append(names, t.Name)
	}
	c.Detail = fmt.Sprintf("%d tool(s) in %s", set.Len(), dir)
	if len(names) > 0 {
		c.Detail += ": " + strings.Join(names, ", ")
	}
	return c
}
