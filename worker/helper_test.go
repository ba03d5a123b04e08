//go:build linux

package worker_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/ident"
	"hpatch-router/internal/testenv"
	"hpatch-router/worker/snapshot"
)

// refused asserts one stderr line starting "shell: " containing want, the
// exit status, and that nothing ran (no stdout).
func refused(t *testing.T, r result, code int, want string) {
	t.Helper()
	if r.code != code || r.stdout != "" || !strings.HasPrefix(r.stderr, "shell: ") ||
		strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("want exit %d and one line containing %q, got %+v", code, want, r)
	}
}

// needChown ends a test that gives a file to another user, which only root
// may do: a skip for a developer's own account, a failure under CI=true.
func needChown(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		testenv.Missing(t, "root", "giving a file to another uid")
	}
}

func (e *env) threadDir() string { return filepath.Join(e.root, "hpatch-"+e.thread) }

func TestHelperRunsWorkerWithOriginalArgv(t *testing.T) {
	e := newEnv(t)
	// $0 of the evaluation is the selector; the worker saw argv[0] "shell"
	// (otherwise the router binary would have run its serve subcommand).
	r := e.run("", "bash", "--", "a b", "c", `printf '%s|' "$0" "$1" "$2" "$#"`)
	if r.stdout != "bash|a b|c|2|" || r.code != 0 {
		t.Fatalf("got %+v", r)
	}
}

func TestHelperRefusals(t *testing.T) {
	nobody := 65534
	cases := []struct {
		name  string
		setup func(t *testing.T, e *env)
		code  int
		want  string
	}{
		{"no thread id", func(t *testing.T, e *env) { e.thread = "" }, 127, "CODEX_THREAD_ID is not set"},
		{"unsafe thread id", func(t *testing.T, e *env) { e.thread = ".." }, 126, "CODEX_THREAD_ID is not usable: thread id \"..\" is not a filename"},
		{"thread id naming the snapshot directory", func(t *testing.T, e *env) {
			e.thread = strings.TrimPrefix(filepath.Base(e.rt.SnapshotDir()), ident.ThreadDirPrefix)
		}, 126, "names the router's snapshot directories"},
		{"thread id over 128 bytes", func(t *testing.T, e *env) { e.thread = strings.Repeat("t", 300) }, 126, "at most 128"},
		{"thread id with a blank", func(t *testing.T, e *env) { e.thread = "a b" }, 126, "blank"},
		{"no runtime for thread", func(t *testing.T, e *env) { e.thread = "other" }, 127, "no runtime for this thread"},
		{"thread dir owned by another uid", func(t *testing.T, e *env) {
			needChown(t)
			must(t, os.Chown(e.threadDir(), nobody, nobody))
		}, 126, "owned by uid 65534"},
		{"group-writable thread dir", func(t *testing.T, e *env) {
			must(t, os.Chmod(e.threadDir(), 0o770))
		}, 126, "writable by group or others"},
		{"thread dir is a symlink", func(t *testing.T, e *env) {
			must(t, os.Rename(e.threadDir(), e.threadDir()+".real"))
			must(t, os.Symlink(e.threadDir()+".real", e.threadDir()))
		}, 126, "wrong file type"},
		{"link owned by another uid", func(t *testing.T, e *env) {
			needChown(t)
			must(t, os.Lchown(filepath.Join(e.threadDir(), ".runtime"), nobody, nobody))
		}, 126, "owned by uid 65534"},
		{"dangling link", func(t *testing.T, e *env) {
			must(t, os.RemoveAll(e.rt.SnapshotDir()))
		}, 127, "dangling"},
		{"link to an unregistered target", func(t *testing.T, e *env) {
			link := filepath.Join(e.threadDir(), ".runtime")
			must(t, os.Remove(link))
			must(t, os.Symlink("/bin/bash", link))
		}, 126, "not a registered launcher"},
		{"snapshot whose manifest does not match its name", func(t *testing.T, e *env) {
			fake := filepath.Join(e.root, snapshot.DirName(strings.Repeat("ab", 16)))
			must(t, os.Mkdir(fake, 0o700))
			must(t, os.WriteFile(filepath.Join(fake, "manifest"), []byte("hpatch-router-snapshot 1\nexe /bin/bash\n"), 0o600))
			must(t, os.Symlink("/bin/bash", filepath.Join(fake, "launcher")))
			link := filepath.Join(e.threadDir(), ".runtime")
			must(t, os.Remove(link))
			must(t, os.Symlink(snapshot.LinkTarget(strings.Repeat("ab", 16)), link))
		}, 126, "does not match its manifest digest"},
		{"group-writable snapshot", func(t *testing.T, e *env) {
			must(t, os.Chmod(e.rt.SnapshotDir(), 0o775))
		}, 126, "writable by group or others"},
		{"launcher relinked", func(t *testing.T, e *env) {
			l := filepath.Join(e.rt.SnapshotDir(), "launcher")
			must(t, os.Remove(l))
			must(t, os.Symlink("/bin/bash", l))
		}, 126, "does not name the executable in its manifest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			c.setup(t, e)
			refused(t, e.run("", "bash", "echo ran"), c.code, c.want)
		})
	}
}

// The worker authenticates itself even when entered without the helper:
// the launcher must resolve to its own executable with the recorded
// identity.
func TestWorkerRefusesUnregisteredExecutable(t *testing.T) {
	e := newEnv(t)
	other := filepath.Join(t.TempDir(), "hpatch-router")
	data, err := os.ReadFile(built.router)
	must(t, err)
	must(t, os.WriteFile(other, data, 0o755))
	cmd := e.command(t.Context(), "bash", "echo ran")
	cmd.Path = other // same bytes, not the registered launcher
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 126 || !strings.Contains(string(out), "does not resolve to this executable") {
		t.Fatalf("exit %d, output %q", code, out)
	}
}

func TestWorkerRefusesChangedExecutable(t *testing.T) {
	root := t.TempDir()
	exe := filepath.Join(t.TempDir(), "hpatch-router")
	data, err := os.ReadFile(built.router)
	must(t, err)
	must(t, os.WriteFile(exe, data, 0o755))
	e := newEnvFor(t, root, exe)
	// Same file, new mtime: the manifest no longer describes it. The
	// helper refuses before exec (13.5); entered directly, the worker
	// refuses by its own /proc/self/exe check.
	must(t, os.Chtimes(exe, timeZero, timeZero))
	refused(t, e.run("", "bash", "echo ran"), 126, "not the file the router registered")
	cmd := e.command(t.Context(), "bash", "/dev/fd/3")
	cmd.Path = exe
	out, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 126 || !strings.Contains(string(out), "changed since the router started") {
		t.Fatalf("worker entered directly: exit %d, output %q", code, out)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
