//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"hpatch-router/internal/buildstamp"
	"hpatch-router/worker/privcmd"
	"hpatch-router/worker/snapshot"
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

// goInstallName is the name `go install …/cmd/shell-helper@VERSION` gives
// the helper. No carrier calls it: Codex runs `shell`.
const goInstallName = "shell-helper"

// misnamedHelper finds a helper `go install` left under its package's
// name: on PATH, else beside this router (go install puts both in one
// directory, GOBIN).
func misnamedHelper(path, self string) (string, bool) {
	if p, ok := lookPathIn(goInstallName, path); ok {
		return p, true
	}
	if self == "" {
		return "", false
	}
	return lookPathIn(goInstallName, filepath.Dir(self))
}

// renameFix says which file to rename or link so that Codex finds the
// misnamed helper as `shell`.
func renameFix(misnamed string) string {
	dir := filepath.Dir(misnamed)
	shell := filepath.Join(dir, "shell")
	return "`go install` named the helper " + misnamed + ": rename it (mv " + misnamed + " " + shell +
		") or link it (ln -s " + goInstallName + " " + shell + "), and keep " + dir + " on Codex's PATH"
}

// checkHelperOnPath finds `shell` on path; self is this router's
// executable, beside which `go install` would have put a misnamed helper.
func checkHelperOnPath(path, self string) check {
	c := check{Name: "helper", Title: "shell helper on PATH", Required: true}
	p, ok := lookPathIn("shell", path)
	if !ok {
		c.Detail = "no executable named shell on PATH"
		c.Fix = "run `make install` (installs hpatch-router and shell into $(go env GOBIN), or $(go env GOPATH)/bin when GOBIN is unset) and put that directory on PATH for Codex"
		if m, ok := misnamedHelper(path, self); ok {
			c.Fix = renameFix(m)
		}
		return c
	}
	c.OK, c.Detail = true, p
	return c
}

// checkHelperBuild compares what a shell call depends on: the helper's
// protocol and commit against this router's (package buildstamp). How
// either was built otherwise (`go run`, make's -trimpath and ldflags, go
// install) does not matter.
func checkHelperBuild(ctx context.Context, helper check, env doctorEnv) check {
	c := check{Name: "helper-build", Title: "shell helper fits this router (commit and protocol)", Required: true}
	if !helper.OK {
		return c.skip("no helper found (see shell helper on PATH)")
	}
	mine := env.selfStamp
	theirs, err := env.helperStamp(ctx, helper.Detail)
	if err == nil {
		if why := buildstamp.Mismatch(mine, theirs); why != "" {
			err = fmt.Errorf("%s is another build: %s", helper.Detail, why)
		}
	}
	if err == nil {
		c.OK = true
		c.Detail = describeStamp(theirs) + stampNote(mine, theirs)
		return c
	}
	c.Detail = err.Error()
	c.Fix = "install the router and the helper from one checkout in one step (`make install`), then restart the router"
	// A helper of this build that `go install` misnamed is the fix at hand.
	self, _ := env.selfExe()
	if m, ok := misnamedHelper(env.getenv("PATH"), self); ok {
		if st, err := env.helperStamp(ctx, m); err == nil && buildstamp.Mismatch(mine, st) == "" {
			c.Fix = renameFix(m)
			if filepath.Dir(m) != filepath.Dir(helper.Detail) {
				c.Fix += ", ahead of " + filepath.Dir(helper.Detail)
			}
		}
	}
	return c
}

// helperProblem is what serve warns about at startup when the PATH it
// runs with (Codex's too, when both start from one session) has no
// `shell` helper that fits this router, so that every worker shell call
// would fail: doctor's two helper checks, the first that fails (OK when
// both pass).
func helperProblem(ctx context.Context, env doctorEnv) check {
	self, _ := env.selfExe()
	c := checkHelperOnPath(env.getenv("PATH"), self)
	if c.OK {
		c = checkHelperBuild(ctx, c, env)
	}
	return c
}

func checkRuntimeRoot(env doctorEnv) check {
	c := check{Name: "runtime-root", Title: "runtime root", Required: true}
	root, err := snapshot.Root(env.getenv, env.uid)
	if err != nil {
		c.Detail = err.Error()
		c.Fix = "set HPATCH_RUNTIME_DIR to an absolute directory, or unset it, for the router and Codex alike"
		return c
	}
	from := "per-user directory in the temp dir"
	switch {
	case env.getenv(snapshot.RootEnv) != "":
		from = "$" + snapshot.RootEnv
	case root == filepath.Join(env.getenv("XDG_RUNTIME_DIR"), snapshot.RootName):
		from = "$XDG_RUNTIME_DIR/" + snapshot.RootName
	}
	c.Detail = root + " (" + from + ")"
	err = snapshot.CheckRoot(root, env.uid)
	var r *snapshot.Refusal
	switch {
	case err == nil:
		c.OK = true
		c.Detail += ", yours and private; the shell helper derives the same root from Codex's environment" + storageNote(root)
	case errors.As(err, &r) && r.Code == snapshot.ExitNotFound:
		c.OK = true
		c.Detail += " does not exist yet; hpatch-router serve creates it (0700)" + storageNote(root)
	case errors.As(err, &r) && r.Fix != "":
		c.Detail, c.Fix = strings.TrimSuffix(r.Msg, "; "+r.Fix), r.Fix
	default:
		c.Detail = err.Error()
		c.Fix = "set HPATCH_RUNTIME_DIR to a private directory of yours for the router and Codex alike"
	}
	return c
}

// checkRegisteredLaunchers verifies, as the helper does before every shell
// call, the binary each running router registered in the runtime root. A
// `make install` or rebuild while a router runs replaces that file, and
// every shell call then fails (126) until the router restarts; the other
// checks, the router's /healthz included, would all pass. routerUp says
// the router answers: then a root where nothing is registered means it
// serves another root, and every shell call fails (127).
func checkRegisteredLaunchers(env doctorEnv, routerUp bool) check {
	c := check{Name: "launchers", Title: "the router serves this runtime root, from the binary it registered", Required: true}
	root, err := snapshot.Root(env.getenv, env.uid)
	var r *snapshot.Refusal
	if err == nil {
		// A root the helper refuses is not listed: through a link another
		// user planted that would read their directory.
		err = snapshot.CheckRoot(root, env.uid)
		if errors.As(err, &r) && r.Code == snapshot.ExitNotFound {
			err = nil
		}
	}
	if err != nil {
		return c.skip("no usable runtime root (see runtime root)")
	}
	entries, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.Detail = "cannot list " + root + ": " + privcmd.Cause(err)
		return c
	}
	var exes, problems []string
	for _, e := range entries {
		if snapshot.DigestOf(e.Name()) == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, e.Name(), snapshot.ManifestName))
		m, perr := snapshot.Parse(data)
		if err != nil || perr != nil {
			problems = append(problems, "snapshot "+e.Name()+" has no readable manifest")
			continue
		}
		fd, err := snapshot.OpenLauncher(m, env.uid)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		unix.Close(fd)
		exes = append(exes, m.Exe)
	}
	switch {
	case len(problems) > 0:
		c.Detail = strings.Join(problems, "; ")
		c.Fix = "restart hpatch-router (systemctl --user restart hpatch-router), so it registers the binary now installed"
	case len(exes) == 0 && routerUp:
		c.Detail = "the router answers, but nothing is registered in " + root + ", where the shell helper looks: " +
			"the router serves another runtime root (started without this session's XDG_RUNTIME_DIR or TMPDIR), or runs --mode passthrough"
		c.Fix = "give the router and Codex one runtime root: export HPATCH_RUNTIME_DIR=" + root + " to both, then restart the router"
	case len(exes) == 0:
		c.OK, c.Detail = true, "no router has registered a binary in "+root+" (none is serving from it)"
	default:
		c.OK, c.Detail = true, strings.Join(exes, ", ")+", unchanged since the router started"
	}
	return c
}

// storageNote says what kind of file system holds root (or would, once
// created): every shell call retains its script there as a new file,
// which costs microseconds in memory and can cost hundreds of them on a
// disk file system (measured on ext4: 3 µs on tmpfs, 200-500 µs there).
func storageNote(root string) string {
	for dir := root; ; dir = filepath.Dir(dir) {
		var st unix.Statfs_t
		err := unix.Statfs(dir, &st)
		if err == nil {
			return storageKind(int64(st.Type))
		}
		if parent := filepath.Dir(dir); parent == dir || !errors.Is(err, unix.ENOENT) {
			return ""
		}
	}
}

// storageKind is storageNote's sentence for a file system's magic number.
func storageKind(magic int64) string {
	switch magic {
	case unix.TMPFS_MAGIC, unix.RAMFS_MAGIC:
		return "; in memory (tmpfs), where retaining a script costs microseconds"
	default:
		return "; on a disk file system, where each retained script is a file create (up to hundreds of µs per shell call); a login session's $XDG_RUNTIME_DIR is in memory and faster"
	}
}

// checkTools reports the optional programs and what each enables.
func checkTools(path string) []check {
	tools := []struct{ name, enables, fix string }{
		{"rg", "hgrep (ripgrep-backed verified search)", "install ripgrep (Debian/Ubuntu: apt-get install ripgrep)"},
		{"gopls", "hsymbol for Go (definitions and references)", "go install golang.org/x/tools/gopls@latest"},
		{"python3", "#!/usr/bin/env python3 shell calls", "install python3 (apt-get install python3)"},
		{"node", "#!/usr/bin/env node shell calls, bundle regeneration (make bundle) and the e2e tests", "install Node.js (apt-get install nodejs npm)"},
	}
	_, goOK := lookPathIn("go", path)
	out := make([]check, 0, len(tools))
	for _, t := range tools {
		c := check{Name: "tool-" + t.name, Title: t.name, Required: false}
		p, ok := lookPathIn(t.name, path)
		switch {
		case ok && t.name == "gopls" && !goOK: // gopls runs go; without it every query fails ("no views")
			c.Detail = p + ", but go is not on PATH: gopls cannot load a workspace, so no " + t.enables
			c.Fix = "add Go's bin directory (e.g. /usr/local/go/bin) to PATH"
		case ok:
			c.OK, c.Detail = true, p+" — enables "+t.enables
		default:
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
