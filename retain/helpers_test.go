package retain

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"hpatch-router/ident"
	"hpatch-router/rows"
)

// fakeClock records expiry callbacks so tests fire them by hand.
type fakeClock struct {
	mu     sync.Mutex
	timers []*fakeTimer
}

type fakeTimer struct {
	mu      sync.Mutex
	d       time.Duration
	fn      func()
	stopped bool
}

func (t *fakeTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

func (c *fakeClock) AfterFunc(d time.Duration, fn func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{d: d, fn: fn}
	c.timers = append(c.timers, t)
	return t
}

// fire runs every timer that is not stopped, as if its time had come.
func (c *fakeClock) fire() { c.fireIf(func(*fakeTimer) bool { return true }) }

// fireIdle runs the store's idle sweep alone, as if idlePeriod had passed.
func (c *fakeClock) fireIdle() { c.fireIf(isIdleSweep) }

func (c *fakeClock) fireIf(match func(*fakeTimer) bool) {
	c.mu.Lock()
	ts := append([]*fakeTimer(nil), c.timers...)
	c.mu.Unlock()
	for _, t := range ts {
		if !match(t) {
			continue
		}
		t.mu.Lock()
		live := !t.stopped
		t.stopped = true
		t.mu.Unlock()
		if live {
			t.fn()
		}
	}
}

// isIdleSweep tells the store's idle sweep from expiry timers (tests use
// no TTL equal to idlePeriod).
func isIdleSweep(t *fakeTimer) bool { return t.d == idlePeriod }

// expiries returns the armed expiry timers, oldest first.
func (c *fakeClock) expiries() []*fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*fakeTimer
	for _, t := range c.timers {
		t.mu.Lock()
		if !t.stopped && !isIdleSweep(t) {
			out = append(out, t)
		}
		t.mu.Unlock()
	}
	return out
}

func (c *fakeClock) live() int { return len(c.expiries()) }

// env is a runtime root with prepared thread directories, a launcher
// outside it, and a workspace directory with a secret file.
type env struct {
	t         *testing.T
	base      string // holds runtime/, launcher, workspace/
	runtime   string
	workspace string
	clock     *fakeClock
	logs      *bytes.Buffer
	store     *Store
}

const secret = "WORKSPACE SECRET\n"

func newEnv(t *testing.T, threads ...string) *env {
	t.Helper()
	return newEnvOn(t, func(string) {}, threads...)
}

// newEnvOn is newEnv with mount called on the empty runtime directory
// before anything is created in it (a test mounts a file system there).
func newEnvOn(t *testing.T, mount func(runtime string), threads ...string) *env {
	t.Helper()
	base := t.TempDir()
	e := &env{t: t, base: base, runtime: filepath.Join(base, "runtime"),
		workspace: filepath.Join(base, "workspace"), clock: &fakeClock{}, logs: &bytes.Buffer{}}
	must(t, os.Mkdir(e.runtime, 0o755))
	mount(e.runtime)
	must(t, os.Mkdir(e.workspace, 0o755))
	must(t, os.WriteFile(filepath.Join(e.workspace, "main.go"), []byte(secret), 0o644))
	must(t, os.WriteFile(filepath.Join(base, "launcher"), []byte("#!/bin/sh\necho launcher\n"), 0o700))
	for _, th := range threads {
		e.prepare(th)
	}
	s, err := NewStore(e.runtime, AfterFunc(e.clock.AfterFunc),
		Logger(slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	must(t, err)
	t.Cleanup(func() { s.Close() })
	e.store = s
	return e
}

// prepare does what the worker's PrepareThread does.
func (e *env) prepare(thread string) {
	dir := e.threadDir(thread)
	must(e.t, os.Mkdir(dir, 0o700))
	must(e.t, os.Symlink(filepath.Join(e.base, "launcher"), filepath.Join(dir, ident.RuntimeLink)))
	must(e.t, os.Mkdir(filepath.Join(dir, ident.ScriptsDirName), 0o700))
}

func (e *env) threadDir(thread string) string {
	return filepath.Join(e.runtime, ident.ThreadDirName(thread))
}
func (e *env) scriptsDir(thread string) string {
	return filepath.Join(e.threadDir(thread), ident.ScriptsDirName)
}

func (e *env) retain(thread, id, content string) (string, error) {
	return e.store.Retain(context.Background(), thread, id, content)
}

func (e *env) resolve(thread, ref string) (string, error) {
	return e.store.Resolve(context.Background(), thread, ref)
}

// tree lists every path below dir (relative), with symlink targets, so a
// test can prove nothing changed.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			out = append(out, "ERR "+err.Error())
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		line := rel + " " + fi.Mode().String()
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			line += " -> " + target
		} else if fi.Mode().IsRegular() {
			f, _ := os.Open(p)
			b, _ := io.ReadAll(f)
			f.Close()
			line += " " + string(b)
		}
		out = append(out, line)
		return nil
	})
	sort.Strings(out)
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// scriptMissingText is the whole message for a reference to a script the
// thread does not hold.
func scriptMissingText(ref string) string {
	return ref + " does not exist in this thread: retained scripts last one hour and are removed when the router restarts; send the script again"
}

var citeRE = regexp.MustCompile(`\{(\d+)\}`)

// cite expands {N} in patch to the LINE:HASH of row N of base, as a model
// would copy it from hread.
func cite(t *testing.T, patch, base string) string {
	baseRows := rows.Split([]byte(base))
	return citeRE.ReplaceAllStringFunc(patch, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		if n < 1 || n > len(baseRows) {
			t.Fatalf("test cites row %d of a %d-row baseline", n, len(baseRows))
		}
		return baseRows[n-1].Cite()
	})
}
