package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// lookPathIn finds an executable regular file named name in the
// directories of path (a PATH value), like exec.LookPath but without
// reading the process environment.
func lookPathIn(name, path string) (string, bool) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // relative PATH entries are not trusted, as exec.LookPath in Go ≥1.19
		}
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

func checkHelperOnPath(path string) check {
	c := check{Name: "helper", Title: "shell helper on PATH", Required: true}
	p, ok := lookPathIn("shell", path)
	if !ok {
		c.Detail = "no executable named shell on PATH"
		c.Fix = "run `make install` (installs hpatch-router and shell into $(go env GOPATH)/bin) and put that directory on PATH for Codex"
		return c
	}
	c.OK, c.Detail = true, p
	return c
}

func checkHelperBuild(helper check, env doctorEnv) check {
	c := check{Name: "helper-build", Title: "shell helper is the same build as this router", Required: true}
	if !helper.OK {
		c.Detail = "skipped: no helper found"
		c.Fix = helper.Fix
		return c
	}
	self, err := env.selfExe()
	if err != nil {
		c.Detail = "cannot locate this router's executable: " + err.Error()
		return c
	}
	mine, err := readBuildID(self)
	if err != nil {
		c.Detail = "cannot read this router's build info: " + err.Error()
		return c
	}
	theirs, err := readBuildID(helper.Detail)
	if err != nil {
		c.Detail = helper.Detail + " is not a Go build of hpatch-router: " + err.Error()
		c.Fix = "reinstall the helper from the router's checkout: `make install`"
		return c
	}
	diff := mine.diff(theirs)
	if len(diff) > 0 {
		c.Detail = fmt.Sprintf("build %s differs from the router's %s (%s)", theirs.short(), mine.short(), joinMax(diff, 3))
		c.Fix = "install the router and the helper from one checkout in one step: `make install`"
		return c
	}
	c.OK = true
	c.Detail = "build " + mine.short() + mine.note()
	return c
}

func checkRuntimeRoot(env doctorEnv) check {
	c := check{Name: "runtime-root", Title: "runtime root", Required: true}
	root, from := env.getenv("HPATCH_RUNTIME_DIR"), "$HPATCH_RUNTIME_DIR"
	if root == "" {
		root, from = env.tempDir(), "the temp dir"
	}
	c.Detail = root + " (" + from + ")"
	if !filepath.IsAbs(root) {
		c.Detail += " is not an absolute path"
		c.Fix = "set HPATCH_RUNTIME_DIR to an absolute directory, for the router and for Codex alike"
		return c
	}
	st, err := os.Stat(root)
	if err != nil {
		c.Detail += ": " + err.Error()
		c.Fix = fmt.Sprintf("mkdir -m 700 %s (and export the same HPATCH_RUNTIME_DIR to Codex)", root)
		return c
	}
	if !st.IsDir() {
		c.Detail += " is not a directory"
		c.Fix = "point HPATCH_RUNTIME_DIR at a directory you own"
		return c
	}
	owner := -1
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		owner = int(sys.Uid)
	}
	mode := st.Mode()
	sticky := mode&fs.ModeSticky != 0
	switch {
	case owner != env.uid && !(owner == 0 && sticky):
		c.Detail += fmt.Sprintf(" is owned by uid %d, not by you (uid %d), and is not a root-owned sticky directory", owner, env.uid)
		c.Fix = "use a directory you own: mkdir -m 700 ~/.hpatch-run && export HPATCH_RUNTIME_DIR=~/.hpatch-run (router and Codex)"
	case mode.Perm()&0o022 != 0 && !sticky:
		c.Detail += fmt.Sprintf(" is writable by others (mode %s) without the sticky bit", octalMode(mode))
		c.Fix = "chmod go-w " + root + " (or chmod +t for a shared temp dir)"
	default:
		c.OK = true
		c.Detail += fmt.Sprintf(", mode %s; export the same HPATCH_RUNTIME_DIR to Codex when you change it", octalMode(mode))
	}
	return c
}

// checkTools reports the optional programs and what each enables.
func checkTools(path string) []check {
	tools := []struct{ name, enables, fix string }{
		{"rg", "hgrep (ripgrep-backed verified search)", "install ripgrep (Debian/Ubuntu: apt-get install ripgrep)"},
		{"gopls", "hsymbol for Go (definitions and references)", "go install golang.org/x/tools/gopls@latest"},
		{"python3", "#!/usr/bin/env python3 shell calls", "install python3 (apt-get install python3)"},
		{"node", "#!/usr/bin/env node shell calls, bundle regeneration (make bundle) and the e2e tests", "install Node.js (apt-get install nodejs npm)"},
	}
	out := make([]check, 0, len(tools))
	for _, t := range tools {
		c := check{Name: "tool-" + t.name, Title: t.name, Required: false}
		if p, ok := lookPathIn(t.name, path); ok {
			c.OK, c.Detail = true, p+" — enables "+t.enables
		} else {
			c.Detail, c.Fix = "not on PATH — without it, no "+t.enables, t.fix
		}
		out = append(out, c)
	}
	return out
}

func joinMax(items []string, n int) string {
	if len(items) > n {
		return fmt.Sprintf("%s, and %d more", strings.Join(items[:n], ", "), len(items)-n)
	}
	return strings.Join(items, ", ")
}

// octalMode renders permission bits and the sticky bit like chmod: 0700, 1777.
func octalMode(m fs.FileMode) string {
	v := uint32(m.Perm())
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	return fmt.Sprintf("%04o", v)
}
