//go:build linux

package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"hpatch-router/ident"
	"hpatch-router/worker"
	"hpatch-router/worker/snapshot"
)

// idleEnv is a runtime whose clock and idle sweep the test drives.
type idleEnv struct {
	t     *testing.T
	root  string
	rt    *worker.Runtime
	sweep func()
	mu    sync.Mutex
	now   time.Time
}

const idleLifetime = time.Hour

func newIdleEnv(t *testing.T) *idleEnv {
	t.Helper()
	e := &idleEnv{t: t, root: t.TempDir(), now: time.Now()}
	must(t, os.Chmod(e.root, 0o700))
	rt, err := worker.NewRuntime(e.root, worker.WithExecutable(built.router), worker.WithThreadLifetime(idleLifetime),
		worker.WithClock(e.clock), worker.WithManualSweep(&e.sweep))
	must(t, err)
	t.Cleanup(func() { rt.Close() })
	e.rt = rt
	return e
}

func (e *idleEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *idleEnv) advance(d time.Duration) {
	e.mu.Lock()
	e.now = e.now.Add(d)
	e.mu.Unlock()
}

func (e *idleEnv) prepare(thread string) {
	e.t.Helper()
	must(e.t, e.rt.PrepareThread(context.Background(), thread))
}

func (e *idleEnv) dir(thread string) string {
	return filepath.Join(e.root, ident.ThreadDirName(thread))
}

func (e *idleEnv) exists(thread string) bool {
	_, err := os.Lstat(e.dir(thread))
	return err == nil
}

// TestIdleThreadDirectoriesAreRemoved: while the router runs, a thread
// directory that holds no retained script and has not been prepared for
// the scripts' lifetime is removed by the sweep; one used since, or one
// holding a script, stays until it qualifies; a removed thread is
// prepared anew on its next use.
func TestIdleThreadDirectoriesAreRemoved(t *testing.T) {
	e := newIdleEnv(t)
	if e.sweep == nil {
		t.Fatal("the runtime armed no idle sweep")
	}
	e.prepare("idle")
	e.prepare("busy")
	e.prepare("scripted")
	must(t, os.WriteFile(filepath.Join(e.dir("scripted"), ident.ScriptsDirName, "call_1"), []byte("print(1)\n"), 0o600))

	e.advance(idleLifetime / 2)
	e.prepare("busy") // a request of the thread: its idle time starts again
	e.advance(idleLifetime/2 - time.Nanosecond)
	e.sweep()
	for _, th := range []string{"idle", "busy", "scripted"} {
		if !e.exists(th) {
			t.Fatalf("%s removed before it was idle for the lifetime", th)
		}
	}

	e.advance(time.Nanosecond)
	e.sweep()
	if e.exists("idle") {
		t.Error("a thread idle for the lifetime with no script was kept")
	}
	if !e.exists("busy") {
		t.Error("a thread used half a lifetime ago was removed")
	}
	if !e.exists("scripted") {
		t.Error("a thread holding a retained script was removed")
	}

	must(t, os.Remove(filepath.Join(e.dir("scripted"), ident.ScriptsDirName, "call_1"))) // the script expired
	e.advance(idleLifetime / 2)
	e.sweep()
	if e.exists("scripted") || e.exists("busy") {
		t.Errorf("kept after their time: scripted %v, busy %v", e.exists("scripted"), e.exists("busy"))
	}
	entries, err := os.ReadDir(e.root)
	must(t, err)
	if len(entries) != 1 { // the snapshot directory
		t.Errorf("root holds %d entries after the sweeps, want only the snapshot", len(entries))
	}

	e.prepare("idle")
	if _, err := os.Readlink(filepath.Join(e.dir("idle"), ".runtime")); err != nil {
		t.Fatalf("a removed thread was not prepared anew: %v", err)
	}
}

// TestIdleSweepLeavesWhatIsNotItsOwn: a thread directory replaced since it
// was verified, or whose .runtime another router took over, is not
// removed by the sweep, whatever its age.
func TestIdleSweepLeavesWhatIsNotItsOwn(t *testing.T) {
	e := newIdleEnv(t)
	e.prepare("replaced")
	e.prepare("taken")
	must(t, os.RemoveAll(e.dir("replaced")))
	must(t, os.MkdirAll(filepath.Join(e.dir("replaced"), ident.ScriptsDirName), 0o700))
	link := filepath.Join(e.dir("taken"), ".runtime")
	must(t, os.Remove(link))
	must(t, os.Symlink("../"+snapshot.DirName("0000000000000000000000000000000000000000000000000000000000000000")+"/launcher", link))

	e.advance(2 * idleLifetime)
	e.sweep()
	if !e.exists("replaced") || !e.exists("taken") {
		t.Fatalf("the sweep removed a directory that is not the one it verified: replaced %v, taken %v", e.exists("replaced"), e.exists("taken"))
	}
	e.sweep() // forgotten: nothing left to look at
	if !e.exists("replaced") || !e.exists("taken") {
		t.Fatal("a second sweep removed them")
	}
}

// TestCloseStopsTheIdleSweep: after Close a sweep that fires removes
// nothing.
func TestCloseStopsTheIdleSweep(t *testing.T) {
	e := newIdleEnv(t)
	e.prepare("t1")
	must(t, e.rt.Close())
	must(t, os.MkdirAll(filepath.Join(e.dir("t1"), ident.ScriptsDirName), 0o700))
	e.advance(2 * idleLifetime)
	e.sweep()
	if !e.exists("t1") {
		t.Fatal("a sweep after Close removed a directory")
	}
}
