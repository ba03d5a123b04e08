//go:build linux

package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/ident"
	"hpatch-router/worker"
	"hpatch-router/worker/snapshot"
)

func TestPrepareThreadLayout(t *testing.T) {
	e := newEnv(t)
	dir := e.threadDir()
	for _, p := range []string{e.root + "/" + filepath.Base(e.rt.SnapshotDir()), dir, filepath.Join(dir, "scripts")} {
		fi, err := os.Lstat(p)
		must(t, err)
		if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want a 0700 directory", p, fi.Mode())
		}
	}
	target, err := os.Readlink(filepath.Join(dir, ".runtime"))
	must(t, err)
	if target != "../"+filepath.Base(e.rt.SnapshotDir())+"/launcher" {
		t.Errorf(".runtime -> %q", target)
	}
	exe, err := filepath.EvalSymlinks(filepath.Join(dir, ".runtime"))
	must(t, err)
	if want, _ := filepath.EvalSymlinks(built.router); exe != want {
		t.Errorf("launcher resolves to %q, want %q", exe, want)
	}
	// The snapshot's name carries the digest of its manifest.
	m, err := os.ReadFile(filepath.Join(e.rt.SnapshotDir(), "manifest"))
	must(t, err)
	if filepath.Base(e.rt.SnapshotDir()) != snapshot.DirName(snapshot.Digest(m)) {
		t.Error("snapshot name does not carry the manifest digest")
	}
	// Idempotent.
	must(t, e.rt.PrepareThread(context.Background(), e.thread))
	must(t, e.rt.PrepareThread(context.Background(), e.thread))
	// A11: nothing named like a private command is created anywhere.
	filepath.Walk(e.root, func(p string, fi os.FileInfo, err error) error {
		for _, n := range []string{"hread", "hgrep", "hsymbol", "inspect_file"} {
			if filepath.Base(p) == n {
				t.Errorf("created %s", p)
			}
		}
		return nil
	})
}

func TestPrepareThreadRejectsUnsafeIDsBeforeCreatingAnything(t *testing.T) {
	root := t.TempDir()
	rt, err := worker.NewRuntime(root, worker.WithExecutable(built.router))
	must(t, err)
	defer rt.Close()
	before, _ := os.ReadDir(root)
	for _, id := range []string{"", ".", "..", "a/b", `a\b`, "a\x00b", "snapshot-0123", "a b", "a\nb", strings.Repeat("t", 129)} {
		if err := rt.PrepareThread(context.Background(), id); err == nil {
			t.Errorf("%q accepted", id)
		}
	}
	after, _ := os.ReadDir(root)
	if len(after) != len(before) {
		t.Errorf("entries changed: %d -> %d", len(before), len(after))
	}
}

func TestPrepareThreadRefusesForeignEntries(t *testing.T) {
	root := t.TempDir()
	rt, err := worker.NewRuntime(root, worker.WithExecutable(built.router))
	must(t, err)
	defer rt.Close()
	t.Run("other uid", func(t *testing.T) {
		needChown(t)
		foreign := filepath.Join(root, ident.ThreadDirName("foreign"))
		must(t, os.Mkdir(foreign, 0o700))
		must(t, os.Chown(foreign, 65534, 65534))
		if err := rt.PrepareThread(context.Background(), "foreign"); err == nil || !strings.Contains(err.Error(), "owned by another user") {
			t.Errorf("other uid: %v", err)
		}
	})
	for thread, mode := range map[string]os.FileMode{"group": 0o770, "others": 0o707, "world": 0o777} {
		dir := filepath.Join(root, ident.ThreadDirName(thread))
		must(t, os.Mkdir(dir, 0o700))
		must(t, os.Chmod(dir, mode))
		if err := rt.PrepareThread(context.Background(), thread); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
			t.Errorf("thread dir %v: %v", mode, err)
		}
	}
	file := filepath.Join(root, ident.ThreadDirName("file"))
	must(t, os.WriteFile(file, nil, 0o600))
	if err := rt.PrepareThread(context.Background(), "file"); err == nil {
		t.Error("a file in place of the thread dir was accepted")
	}
}

// A second router takes a thread over by relinking .runtime atomically;
// closing the first one then leaves the thread alone.
func TestCloseRemovesOnlyWhatItOwns(t *testing.T) {
	root := t.TempDir()
	a, err := worker.NewRuntime(root, worker.WithExecutable(built.router))
	must(t, err)
	must(t, a.PrepareThread(context.Background(), "t1"))
	must(t, a.PrepareThread(context.Background(), "t2"))
	// A second runtime (another launcher) in the same root.
	b, err := worker.NewRuntime(root, worker.WithExecutable(copyOf(t, built.router)))
	must(t, err)
	must(t, b.PrepareThread(context.Background(), "t2"))
	// t1 was replaced by another directory: a must not remove it.
	t1 := filepath.Join(root, ident.ThreadDirName("t1"))
	must(t, os.RemoveAll(t1))
	must(t, os.Mkdir(t1, 0o700))
	must(t, a.Close())
	if _, err := os.Stat(t1); err != nil {
		t.Error("Close removed a directory it did not create")
	}
	if _, err := os.Stat(filepath.Join(root, ident.ThreadDirName("t2"), ".runtime")); err != nil {
		t.Error("Close removed a thread another router took over")
	}
	if _, err := os.Stat(a.SnapshotDir()); !os.IsNotExist(err) {
		t.Error("Close left its snapshot")
	}
	if err := a.PrepareThread(context.Background(), "t3"); err == nil {
		t.Error("PrepareThread after Close succeeded")
	}
	must(t, b.Close())
	if _, err := os.Stat(filepath.Join(root, ident.ThreadDirName("t2"))); !os.IsNotExist(err) {
		t.Error("b did not remove t2")
	}
}

// A restarted router reclaims snapshots whose owner is gone and the thread
// directories that link to them; a live owner's entries stay.
func TestNewRuntimeReclaimsStaleEntries(t *testing.T) {
	root := t.TempDir()
	live, err := worker.NewRuntime(root, worker.WithExecutable(built.router))
	must(t, err)
	defer live.Close()
	must(t, live.PrepareThread(context.Background(), "live"))

	// A stale snapshot: a manifest naming a process that is gone.
	m := snapshot.Manifest{Exe: built.router, SHA256: "00", PID: deadPID(t), Start: 1}
	data := m.Encode()
	d := snapshot.Digest(data)
	stale := filepath.Join(root, snapshot.DirName(d))
	must(t, os.Mkdir(stale, 0o700))
	must(t, os.WriteFile(filepath.Join(stale, "manifest"), data, 0o600))
	must(t, os.Symlink(built.router, filepath.Join(stale, "launcher")))
	orphan := filepath.Join(root, ident.ThreadDirName("orphan"))
	must(t, os.MkdirAll(filepath.Join(orphan, "scripts"), 0o700))
	must(t, os.Symlink(snapshot.LinkTarget(d), filepath.Join(orphan, ".runtime")))
	want := map[string]bool{stale: false, orphan: false, live.SnapshotDir(): true,
		filepath.Join(root, ident.ThreadDirName("live")): true}
	// Not provably ours: another user's look-alike stays (only root can
	// make one; the rest is checked without it, then the test says so).
	foreign := filepath.Join(root, snapshot.DirName(strings.Repeat("0", 32)))
	if os.Getuid() == 0 {
		must(t, os.Mkdir(foreign, 0o700))
		must(t, os.Chown(foreign, 65534, 65534))
		want[foreign] = true
	}

	rt, err := worker.NewRuntime(root, worker.WithExecutable(copyOf(t, built.router)))
	must(t, err)
	defer rt.Close()
	for p, want := range want {
		_, err := os.Lstat(p)
		if got := err == nil; got != want {
			t.Errorf("%s exists=%v, want %v", p, got, want)
		}
	}
	if !want[foreign] {
		needChown(t)
	}
}

func copyOf(t *testing.T, path string) string {
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	data, err := os.ReadFile(path)
	must(t, err)
	must(t, os.WriteFile(out, data, 0o755))
	return out
}

// deadPID returns a pid that is not running.
func deadPID(t *testing.T) int {
	for pid := 999999; pid > 900000; pid-- {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return pid
		}
	}
	t.Skip("no free pid found")
	return 0
}
