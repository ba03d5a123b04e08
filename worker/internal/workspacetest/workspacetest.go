package workspacetest

import (
	"bytes"
	"context"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/worker/privcmd"
)

// Copy copies testdata/workspace into a temporary directory and adds what
// git does not hold nicely: symlinks, a non-UTF-8 file, a file with NUL.
// Tests run in their package directory, worker/<command>, two levels below
// the repository root.
func Copy(t testing.TB) string {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "workspace")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	extra := map[string]string{
		"text/latin1.txt": "caf\xe9 needle\nok needle\n",
		"text/nul.bin":    "needle before\x00needle after\n",
	}
	for name, data := range extra {
		if err := os.WriteFile(filepath.Join(dst, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Symlinks live under "_" names, which Go tooling (gopls) ignores, so
	// they do not add a second package main to the fixture module.
	if err := os.Mkdir(filepath.Join(dst, "_links"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"_links/main.go": "../main.go", "_linkdir": "util"} {
		if err := os.Symlink(target, filepath.Join(dst, link)); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// Run runs fn in dir with the process environment (for PATH) and the
// limits the worker gives the command args[0] (privcmd.Bounds), and returns
// stdout, stderr and the status.
func Run(t testing.TB, fn privcmd.Func, dir string, args ...string) (string, string, int) {
	t.Helper()
	return RunWith(t, fn, dir, privcmd.Bounds(args[0]), args...)
}

// RunWith is Run with the given limits.
func RunWith(t testing.TB, fn privcmd.Func, dir string, l privcmd.Limits, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &privcmd.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Dir: dir, Environ: os.Environ(), Limits: l,
	}
	code := fn(context.Background(), env, args)
	return out.String(), errb.String(), code
}

// Grow creates path and appends line(1), line(2), … up to line(n), each
// with "\n", in two writes each so readers land inside lines, until the
// test ends. It returns once the file is not empty.
func Grow(t testing.TB, path string, n int, line func(i int) string) {
	t.Helper()
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= n; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s := line(i) + "\n"
			w.WriteString(s[:len(s)/2])
			w.WriteString(s[len(s)/2:])
		}
	}()
	t.Cleanup(func() { close(stop); <-done; w.Close() })
	for fi, err := os.Stat(path); err == nil && fi.Size() == 0; fi, err = os.Stat(path) {
		runtime.Gosched()
	}
}

// Allocated returns the bytes the process allocated while f ran.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// SpecialFiles creates in dir what a private command must refuse without
// blocking or reading: "fifo" (a FIFO nobody writes), "sock" (a listening
// Unix socket), "zero" (a symlink to /dev/zero) and "sparse" (a 1 TiB file
// with no blocks).
func SpecialFiles(t testing.TB, dir string) {
	t.Helper()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(1 << 40); err != nil {
		t.Fatal(err)
	}
}
