package retain

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hpatch-router/ident"
)

func TestExpiryRemovesArtifact(t *testing.T) {
	e := newEnv(t, "T1")
	ref, err := e.retain("T1", "call_1", py)
	must(t, err)
	foreign := filepath.Join(e.scriptsDir("T1"), "foreign")
	must(t, os.WriteFile(foreign, []byte("x\n"), 0o600))
	e.clock.fire()
	if _, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), "call_1")); !os.IsNotExist(err) {
		t.Fatalf("artifact survived expiry: %v", err)
	}
	if _, err := os.Lstat(foreign); err != nil {
		t.Fatalf("expiry removed a file it did not write: %v", err)
	}
	if _, err := e.resolve("T1", ref); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("Resolve after expiry: %v", err)
	}
	// The id is free again after expiry.
	if _, err := e.retain("T1", "call_1", py); err != nil {
		t.Fatalf("retain after expiry: %v", err)
	}
}

func TestExpiryLeavesReplacedFile(t *testing.T) {
	e := newEnv(t, "T1")
	_, err := e.retain("T1", "call_1", py)
	must(t, err)
	p := filepath.Join(e.scriptsDir("T1"), "call_1")
	must(t, os.Remove(p))
	must(t, os.WriteFile(p, []byte("someone else's\n"), 0o600))
	e.clock.fire()
	if b, err := os.ReadFile(p); err != nil || string(b) != "someone else's\n" {
		t.Fatalf("expiry removed a file it did not write: %q %v", b, err)
	}
}

// swap is one way to replace a storage path component by an escaping
// symlink after the store opened it.
type swap struct {
	name string
	do   func(e *env, outside string)
}

var swaps = []swap{
	{"scripts/ renamed away and replaced by a symlink", func(e *env, outside string) {
		s := e.scriptsDir("T1")
		must(e.t, os.Rename(s, s+".moved"))
		must(e.t, os.Symlink(filepath.Join(outside, ident.ScriptsDirName), s))
	}},
	{"thread directory renamed away and replaced by a symlink", func(e *env, outside string) {
		d := e.threadDir("T1")
		must(e.t, os.Rename(d, d+".moved"))
		must(e.t, os.Symlink(outside, d))
	}},
	{"scripts/ replaced by a relative symlink to the workspace", func(e *env, outside string) {
		s := e.scriptsDir("T1")
		must(e.t, os.Rename(s, s+".moved"))
		must(e.t, os.Symlink("../../outside/scripts", s))
	}},
}

// outsideDir makes a directory outside the runtime root that looks like
// thread storage and holds a file named like the artifact.
func outsideDir(e *env) string {
	o := filepath.Join(e.base, "outside")
	must(e.t, os.MkdirAll(filepath.Join(o, ident.ScriptsDirName), 0o700))
	must(e.t, os.WriteFile(filepath.Join(o, ident.ScriptsDirName, "call_1"), []byte(secret), 0o600))
	return o
}

// TestSwappedStorageStaysConfined: after a storage path component is
// replaced by an escaping symlink, expiry, shutdown, retention and reads
// touch nothing outside.
func TestSwappedStorageStaysConfined(t *testing.T) {
	ops := []struct {
		name string
		run  func(e *env) error
	}{
		{"expiry", func(e *env) error { e.clock.fire(); return nil }},
		{"Close", func(e *env) error { return e.store.Close() }},
		{"Retain", func(e *env) error { _, err := e.retain("T1", "call_2", py); return err }},
		{"Resolve", func(e *env) error { _, err := e.resolve("T1", "@shell/call_1"); return err }},
		{"Apply", func(e *env) error {
			_, err := e.store.Apply(context.Background(), "T1", "in @shell/call_1\nadd EOF \"print(2)\"\n")
			return err
		}},
	}
	for _, sw := range swaps {
		for _, op := range ops {
			t.Run(op.name+" after "+sw.name, func(t *testing.T) {
				e := newEnv(t, "T1")
				e.t = t
				_, err := e.retain("T1", "call_1", py)
				must(t, err)
				o := outsideDir(e)
				sw.do(e, o)
				before := tree(t, o)
				ws := tree(t, e.workspace)
				err = op.run(e)
				if op.name != "expiry" && op.name != "Close" && err == nil {
					t.Fatalf("%s succeeded through swapped storage", op.name)
				}
				if after := tree(t, o); !equal(before, after) {
					t.Fatalf("%s touched the outside directory:\nbefore %q\nafter  %q", op.name, before, after)
				}
				if after := tree(t, e.workspace); !equal(ws, after) {
					t.Fatalf("%s touched the workspace", op.name)
				}
				if op.name == "expiry" || op.name == "Close" {
					if !strings.Contains(e.logs.String(), "storage changed") {
						t.Fatalf("no warning logged: %s", e.logs)
					}
				}
			})
		}
	}
}

func TestCloseCleansUp(t *testing.T) {
	e := newEnv(t, "T1", "T2")
	_, err := e.retain("T1", "call_1", py)
	must(t, err)
	_, err = e.retain("T2", "call_2", py)
	must(t, err)
	foreign := filepath.Join(e.scriptsDir("T1"), "foreign")
	must(t, os.WriteFile(foreign, []byte("x\n"), 0o600))
	must(t, e.store.Close())
	if e.clock.live() != 0 {
		t.Fatalf("%d expiry timers still armed after Close", e.clock.live())
	}
	for _, p := range []string{filepath.Join(e.scriptsDir("T1"), "call_1"), filepath.Join(e.scriptsDir("T2"), "call_2")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Fatalf("%s survived Close", p)
		}
	}
	for _, p := range []string{foreign, e.scriptsDir("T2"), filepath.Join(e.threadDir("T1"), ident.RuntimeLink)} {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("Close removed %s, which it did not create", p)
		}
	}
	must(t, e.store.Close()) // idempotent
	e.clock.fire()           // late callbacks are harmless
}

// TestReopensRecreatedThread: when the worker recreates a thread
// directory, the store follows the new one instead of writing into the
// orphaned old directory.
func TestReopensRecreatedThread(t *testing.T) {
	e := newEnv(t, "T1")
	_, err := e.retain("T1", "call_1", py)
	must(t, err)
	must(t, os.RemoveAll(e.threadDir("T1")))
	e.prepare("T1")
	_, err = e.retain("T1", "call_2", py)
	must(t, err)
	if _, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), "call_2")); err != nil {
		t.Fatalf("artifact not in the current thread directory: %v", err)
	}
	e.clock.fire()
	if _, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), "call_2")); !os.IsNotExist(err) {
		t.Fatalf("expiry missed the reopened thread: %v", err)
	}
}

// TestIdleThreadsHoldNoDescriptors: a thread is kept open only while the
// store owns artifacts in it.
func TestIdleThreadsHoldNoDescriptors(t *testing.T) {
	e := newEnv(t, "T1", "T2")
	must(t, os.WriteFile(filepath.Join(e.scriptsDir("T2"), "old"), []byte("x\n"), 0o600))
	if _, err := e.resolve("T2", "@shell/old"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Apply(context.Background(), "T2", cite(t, "in @shell/old\ntype {1} \"y\"", "x\n")); err != nil {
		t.Fatal(err)
	}
	_, err := e.retain("T1", "a", py)
	must(t, err)
	if n := openThreads(e.store); n != 1 {
		t.Fatalf("%d threads open, want 1 (T1 owns an artifact)", n)
	}
	e.clock.fire()
	if n := openThreads(e.store); n != 0 {
		t.Fatalf("%d threads open after expiry, want 0", n)
	}
}

// TestRetainedThreadsHoldBoundedDescriptors: a thread that owns artifacts
// is remembered (its expiry timers live), but only the maxOpenThreads most
// recently used keep their directories open between operations: 300
// retained threads hold at most 2×maxOpenThreads descriptors (thread
// directory and scripts/), none once two idle sweeps found
// them unused, and expiry and Close still find every artifact.
func TestRetainedThreadsHoldBoundedDescriptors(t *testing.T) {
	const threads = 300
	var ids []string
	for i := range threads {
		ids = append(ids, "fd-thread-"+strconv.Itoa(i))
	}
	e := newEnv(t, ids...)
	before := openFDs(t)
	for _, th := range ids {
		_, err := e.retain(th, "call_1", py)
		must(t, err)
		if _, err := e.resolve(th, "@shell/call_1"); err != nil {
			t.Fatal(err)
		}
	}
	if n := openThreads(e.store); n != threads {
		t.Fatalf("%d threads remembered, want %d", n, threads)
	}
	const perThread = 2
	if after := openFDs(t); after != before+perThread*maxOpenThreads {
		t.Fatalf("%d descriptors open after retaining in %d threads, %d before; want the %d most recent threads open, %d descriptors each", after, threads, before, maxOpenThreads, perThread)
	}
	e.clock.fireIdle() // the last threads were used since the sweep was armed
	if after := openFDs(t); after != before+perThread*maxOpenThreads {
		t.Fatalf("the first idle sweep closed threads used since the last one: %d descriptors, %d before", after, before)
	}
	e.clock.fireIdle()
	if after := openFDs(t); after != before {
		t.Fatalf("%d descriptors open after two idle sweeps, %d before", after, before)
	}
	if _, err := e.resolve(ids[threads-1], "@shell/call_1"); err != nil {
		t.Fatalf("a thread closed when idle does not reopen: %v", err)
	}
	e.clock.fire()
	for _, th := range ids {
		if _, err := os.Lstat(filepath.Join(e.scriptsDir(th), "call_1")); !os.IsNotExist(err) {
			t.Fatalf("%s: expiry left the artifact (%v)", th, err)
		}
	}
	if n := openThreads(e.store); n != 0 {
		t.Fatalf("%d threads remembered after expiry", n)
	}
	if after := openFDs(t); after != before {
		t.Fatalf("%d descriptors open after expiry, %d before", after, before)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(ents)
}

func openThreads(s *Store) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.threads)
}

// TestExpiryLeavesSwappedArtifact: an artifact replaced by a symlink to a
// workspace file is neither followed nor removed by expiry or Close.
func TestExpiryLeavesSwappedArtifact(t *testing.T) {
	for _, end := range []string{"expiry", "Close"} {
		t.Run(end, func(t *testing.T) {
			e := newEnv(t, "T1")
			_, err := e.retain("T1", "call_1", py)
			must(t, err)
			p := filepath.Join(e.scriptsDir("T1"), "call_1")
			must(t, os.Remove(p))
			must(t, os.Symlink(filepath.Join(e.workspace, "main.go"), p))
			ws := tree(t, e.workspace)
			if end == "expiry" {
				e.clock.fire()
			} else {
				e.store.Close()
			}
			if after := tree(t, e.workspace); !equal(ws, after) {
				t.Fatalf("%s touched the workspace", end)
			}
			if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%s removed or changed the swapped-in symlink: %v", end, err)
			}
		})
	}
}
