package main

import (
	"crypto/sha256"
	"debug/elf"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/internal/testenv"
)

// TestMakeInstallA11 runs the real `make install` and `make uninstall`
// targets: install puts exactly hpatch-router and shell into GOBIN, changes
// nothing under the Codex home, and creates no hread/hgrep/hsymbol/
// inspect_file file anywhere it touched; uninstall removes exactly those
// two. A target that copied a private command out, or wrote Codex config,
// fails here.
func TestMakeInstallA11(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries through make")
	}
	testenv.NeedTool(t, "make")
	gobin, home, codexHome := t.TempDir(), testenv.FreshHome(t), t.TempDir()
	config := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(config, []byte("model = \"gpt-5.6-sol\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := treeDigest(t, codexHome)
	// A fresh HOME would also move Go's caches; keep the warm ones.
	goEnv := goEnvVars(t, "GOCACHE", "GOMODCACHE", "GOPATH")
	make := func(target string) {
		t.Helper()
		cmd := exec.Command("make", "-C", filepath.Join("..", ".."), target)
		cmd.Env = append(home.Environ(os.Environ()), "GOBIN="+gobin, "CODEX_HOME="+codexHome)
		cmd.Env = append(cmd.Env, goEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make %s: %v\n%s", target, err, out)
		}
	}
	make("install")
	if got := names(t, gobin); !slices.Equal(got, []string{"hpatch-router", "shell"}) {
		t.Fatalf("GOBIN after make install = %q, want exactly hpatch-router and shell", got)
	}
	for _, name := range []string{"hpatch-router", "shell"} {
		if interp := elfInterpreter(t, filepath.Join(gobin, name)); interp != "" {
			t.Errorf("make install built %s dynamically linked (interpreter %s); every shell call starts it, static skips the loader", name, interp)
		}
	}
	if after := treeDigest(t, codexHome); after != before {
		t.Fatalf("make install changed the Codex home")
	}
	for _, root := range []string{gobin, home.Dir, codexHome} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && slices.Contains([]string{"hread", "hgrep", "hsymbol", "inspect_file"}, d.Name()) {
				t.Errorf("A11: %s exists after make install", p)
			}
			return nil
		})
	}
	make("uninstall")
	if got := names(t, gobin); len(got) != 0 {
		t.Fatalf("GOBIN after make uninstall = %q, want empty", got)
	}
}

// TestMakeBuildFollowsTheVersion: the binaries report the version make
// was given and are rebuilt when it changes, even with no source changed
// (a commit that touched only documentation); the same version finds them
// up to date; and where git cannot tell the version (root in a user's
// clone, as in `sudo make install`), the one they were built with stands
// and nothing is rebuilt.
func TestMakeBuildFollowsTheVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries through make")
	}
	testenv.NeedTool(t, "make")
	bin := t.TempDir()
	home := testenv.FreshHome(t)
	goEnv := goEnvVars(t, "GOCACHE", "GOMODCACHE", "GOPATH")
	router := filepath.Join(bin, "hpatch-router")
	build := func(extraEnv []string, args ...string) (version string, mtime int64) {
		t.Helper()
		cmd := exec.Command("make", append([]string{"-C", filepath.Join("..", ".."), "build", "BIN=" + bin}, args...)...)
		cmd.Env = append(append(home.Environ(os.Environ()), goEnv...), extraEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make build %q: %v\n%s", args, err, out)
		}
		out, err := exec.Command(router, "--version").Output()
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(router)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out)), fi.ModTime().UnixNano()
	}
	v1, m1 := build(nil, "VERSION=v-one")
	if v1 != "hpatch-router v-one" {
		t.Fatalf("--version = %q after make build VERSION=v-one", v1)
	}
	if _, m := build(nil, "VERSION=v-one"); m != m1 {
		t.Fatal("the same version rebuilt the binary")
	}
	v2, m2 := build(nil, "VERSION=v-two")
	if v2 != "hpatch-router v-two" || m2 == m1 {
		t.Fatalf("--version = %q after make build VERSION=v-two (rebuilt: %v)", v2, m2 != m1)
	}
	// GIT_DIR to nowhere: git describe fails, as it does for root in a
	// clone another user owns.
	if v, m := build([]string{"GIT_DIR=" + filepath.Join(bin, "no-git")}); v != v2 || m != m2 {
		t.Fatalf("without git: --version = %q, rebuilt: %v; want v-two, up to date", v, m != m2)
	}
}

// TestMakeInstallPrefixDestdir: `make install PREFIX=/usr/local
// DESTDIR=STAGE` puts exactly the two static binaries, 0755, in
// STAGE/usr/local/bin and nothing in the user's Go bin directory; a second
// install renames new files over the old ones (a new inode, so a running
// router keeps its own and a shell call never runs half a file); `make
// uninstall` with the same variables removes exactly them. Off Linux
// (GOOS=darwin) install stops with the one line before building anything.
func TestMakeInstallPrefixDestdir(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries through make")
	}
	testenv.NeedTool(t, "make")
	gobin, stage := t.TempDir(), t.TempDir()
	home := testenv.FreshHome(t)
	goEnv := goEnvVars(t, "GOCACHE", "GOMODCACHE", "GOPATH")
	make := func(extraEnv []string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command("make", append([]string{"-C", filepath.Join("..", "..")}, args...)...)
		cmd.Env = append(append(append(home.Environ(os.Environ()), "GOBIN="+gobin), goEnv...), extraEnv...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	vars := []string{"PREFIX=/usr/local", "DESTDIR=" + stage}
	bindir := filepath.Join(stage, "usr", "local", "bin")
	inodes := map[string]uint64{}
	for round := range 2 {
		if out, err := make(nil, append([]string{"install"}, vars...)...); err != nil {
			t.Fatalf("make install %s: %v\n%s", strings.Join(vars, " "), err, out)
		}
		if got := names(t, bindir); !slices.Equal(got, []string{"hpatch-router", "shell"}) {
			t.Fatalf("%s after make install = %q, want exactly hpatch-router and shell", bindir, got)
		}
		for _, name := range []string{"hpatch-router", "shell"} {
			p := filepath.Join(bindir, name)
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o755 {
				t.Errorf("%s has mode %v, want 0755", p, fi.Mode().Perm())
			}
			if interp := elfInterpreter(t, p); interp != "" {
				t.Errorf("%s is dynamically linked (%s)", p, interp)
			}
			ino := fi.Sys().(*syscall.Stat_t).Ino
			if round == 1 && ino == inodes[name] {
				t.Errorf("the second install wrote %s in place (inode %d); it must rename a new file over it", p, ino)
			}
			inodes[name] = ino
		}
	}
	if got := names(t, gobin); len(got) != 0 {
		t.Errorf("make install PREFIX=… wrote into the Go bin directory: %q", got)
	}
	if out, err := make(nil, append([]string{"uninstall"}, vars...)...); err != nil {
		t.Fatalf("make uninstall: %v\n%s", err, out)
	}
	if got := names(t, bindir); len(got) != 0 {
		t.Fatalf("%s after make uninstall = %q, want empty", bindir, got)
	}
	out, err := make([]string{"GOOS=darwin"}, "install")
	if err == nil || !strings.Contains(out, "the shell worker needs Linux for now (this is darwin)") || strings.Contains(out, "go build") {
		t.Errorf("GOOS=darwin make install: %v, want a stop with the one line before any build:\n%s", err, out)
	}
	if got := names(t, gobin); len(got) != 0 {
		t.Errorf("GOOS=darwin make install wrote %q", got)
	}
}

// elfInterpreter returns the dynamic loader an executable names (its
// PT_INTERP), "" for a static one.
func elfInterpreter(t *testing.T, path string) string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				t.Fatal(err)
			}
			return strings.TrimRight(string(b), "\x00")
		}
	}
	return ""
}

// goEnvVars returns KEY=VALUE for each named `go env` variable.
func goEnvVars(t *testing.T, keys ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"env"}, keys...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	var env []string
	for i, v := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		env = append(env, keys[i]+"="+v)
	}
	return env
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// treeDigest hashes every path, mode and content below dir.
func treeDigest(t *testing.T, dir string) [32]byte {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(p + "\x00" + info.Mode().String() + "\x00"))
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// TestMakeInstallRestartNote (issue 37): `make install` says to restart
// the router only when a router started from the file it replaced is
// still running: not on a first install, not with no router running.
func TestMakeInstallRestartNote(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries through make")
	}
	testenv.NeedTool(t, "make")
	gobin, home := t.TempDir(), testenv.FreshHome(t)
	goEnv := goEnvVars(t, "GOCACHE", "GOMODCACHE", "GOPATH")
	install := func() string {
		t.Helper()
		cmd := exec.Command("make", "-C", filepath.Join("..", ".."), "install")
		cmd.Env = append(append(home.Environ(os.Environ()), "GOBIN="+gobin), goEnv...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make install: %v\n%s", err, out)
		}
		return string(out)
	}
	const note = "still running"
	if out := install(); strings.Contains(out, note) {
		t.Errorf("the first install says to restart:\n%s", out)
	}
	if out := install(); strings.Contains(out, note) {
		t.Errorf("a reinstall with no router running says to restart:\n%s", out)
	}
	rp := startRouter(t, routerSpec{binDir: gobin, upstream: "http://127.0.0.1:9/v1", runtimeDir: t.TempDir()})
	if out := install(); !strings.Contains(out, note) || !strings.Contains(out, "systemctl --user restart hpatch-router") {
		t.Errorf("a reinstall under a running router does not say to restart it:\n%s", out)
	}
	rp.stop()
}
