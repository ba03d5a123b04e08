package testenv

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// outcome records how NeedTool ended a test instead of ending it.
type outcome struct {
	testing.TB
	skipped, failed string
}

func (o *outcome) Helper()                          {}
func (o *outcome) Skipf(format string, args ...any) { o.skipped = fmt.Sprintf(format, args...) }
func (o *outcome) Fatalf(format string, args ...any) {
	o.failed = fmt.Sprintf(format, args...)
}

func TestNeedTool(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name, ci, path, tool string
		wantSkip, wantFail   string
	}{
		{name: "a tool on PATH is found", path: os.Getenv("PATH"), tool: "go"},
		{name: "missing locally skips", path: empty, tool: "gopls", wantSkip: "skipped (needs gopls): gopls is not on PATH;"},
		{name: "missing under CI=true fails", ci: "true", path: empty, tool: "gopls", wantFail: "missing gopls: gopls is not on PATH (CI=true"},
		{name: "CI must be exactly true to fail", ci: "1", path: empty, tool: "rg", wantSkip: "skipped (needs rg): rg is not on PATH"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			t.Setenv("PATH", tc.path)
			o := &outcome{TB: t}
			got := NeedTool(o, tc.tool)
			if !strings.HasPrefix(o.skipped, tc.wantSkip) || (tc.wantSkip == "") != (o.skipped == "") {
				t.Errorf("skip %q, want %q", o.skipped, tc.wantSkip)
			}
			if !strings.HasPrefix(o.failed, tc.wantFail) || (tc.wantFail == "") != (o.failed == "") {
				t.Errorf("failure %q, want %q", o.failed, tc.wantFail)
			}
			if (got == "") != (tc.wantSkip != "" || tc.wantFail != "") {
				t.Errorf("path %q", got)
			}
		})
	}
}

func TestFreshHome(t *testing.T) {
	a, b := FreshHome(t), FreshHome(t)
	base := []string{"HOME=/root", "PATH=/bin", "XDG_CACHE_HOME=/root/.cache", "XDG_SESSION_ID=3", "TMPDIR=/tmp", "LANG=C"}
	env := a.Environ(base)
	var names []string
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		names = append(names, name)
		switch {
		case name == "PATH" || name == "LANG":
		case a.Dirs[name] == "" || value != a.Dirs[name]:
			t.Errorf("%s survived from the base environment", kv)
		}
	}
	for name, dir := range a.Dirs {
		if !slices.Contains(names, name) {
			t.Errorf("%s missing from %q", name, env)
		}
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s=%s: %v %v", name, dir, fi.Mode(), err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s is not empty", dir)
		}
		if dir == b.Dirs[name] {
			t.Errorf("two homes share %s", dir)
		}
		for other, od := range a.Dirs {
			if other != name && strings.HasPrefix(od, dir+"/") {
				t.Errorf("%s lies inside %s", other, name)
			}
		}
	}
	if len(a.Dirs) != 7 || a.Dir != a.Dirs["HOME"] {
		t.Errorf("dirs %v", a.Dirs)
	}
}
