package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// InCI reports whether the tests run in CI (CI=true), where a missing tool
// is a failure.
func InCI() bool { return os.Getenv("CI") == "true" }

// NeedTool returns the path of the executable name found on PATH. Without
// it the test skips, or fails under CI=true.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name, "%s is not on PATH", name)
	}
	return p
}

// Missing ends a test whose external tool (or privilege, such as root)
// is absent: a skip on a developer's machine, a failure under CI=true.
// Every such message has one form, "skipped (needs TOOL): detail", which
// `make test`'s closing block (internal/testsummary) groups by TOOL.
func Missing(t testing.TB, tool, format string, args ...any) {
	t.Helper()
	detail := fmt.Sprintf(format, args...)
	if InCI() {
		t.Fatalf("missing %s: %s (CI=true: .ci/run installs it; a missing tool fails instead of skipping)", tool, detail)
		return
	}
	t.Skipf("%s%s): %s; under CI=true this fails", SkipPrefix, tool, detail)
}

// SkipPrefix starts a skip message of Missing: "skipped (needs TOOL): …".
const SkipPrefix = "skipped (needs "

// Home is a set of fresh, empty per-test directories standing in for a
// user's home: HOME, the XDG base directories and TMPDIR.
type Home struct {
	Dir  string            // HOME
	Dirs map[string]string // variable name → directory: HOME, TMPDIR, XDG_*
}

// homeVars are the variables FreshHome sets, in the order Environ lists
// them.
func homeVars() []string {
	return []string{"HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"}
}

// FreshHome makes an empty HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME,
// XDG_DATA_HOME, XDG_STATE_HOME, XDG_RUNTIME_DIR and TMPDIR (each 0700,
// removed when the test ends). They are siblings, none inside another, so
// a program that refuses to keep state inside the temp dir (Codex) is not
// surprised.
func FreshHome(t testing.TB) *Home {
	t.Helper()
	root := t.TempDir()
	h := &Home{Dirs: map[string]string{}}
	mk := func(name string) string {
		p := filepath.Join(root, strings.ToLower(name))
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, v := range homeVars() {
		h.Dirs[v] = mk(v)
	}
	h.Dir = h.Dirs["HOME"]
	return h
}

// Environ is base without any HOME, XDG_* or TMPDIR entry, followed by
// this home's entries: what a subprocess of the test gets.
func (h *Home) Environ(base []string) []string {
	out := make([]string, 0, len(base)+len(h.Dirs))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, ours := h.Dirs[name]; ours || strings.HasPrefix(name, "XDG_") {
			continue
		}
		out = append(out, kv)
	}
	for _, name := range homeVars() {
		out = append(out, name+"="+h.Dirs[name])
	}
	return out
}
