//go:build linux

package retain

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/internal/testenv"
)

// TestEditErrorsNameTheScriptNotThePath: an edit that fails on a full or
// read-only file system tells the model the script (`@shell/<id>`) and the
// cause, never the runtime directory's host path or the store's temporary
// names, and changes nothing. The runtime is a real tmpfs of 64 KiB, so
// the errors are the kernel's.
func TestEditErrorsNameTheScriptNotThePath(t *testing.T) {
	for _, c := range []struct {
		name    string
		breakFS func(t *testing.T, e *env)
		cause   error
		want    string
	}{
		{"full disk", fillDisk, syscall.ENOSPC, "write @shell/call_1: no space left on device; nothing was changed"},
		{"read-only file system", remountReadOnly, syscall.EROFS, "write @shell/call_1: read-only file system; nothing was changed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnvOn(t, mountTmpfs(t, "size=64k"), "T1")
			if _, err := e.retain("T1", "call_1", py); err != nil {
				t.Fatal(err)
			}
			before := tree(t, e.scriptsDir("T1"))
			c.breakFS(t, e)
			_, err := e.store.Apply(context.Background(), "T1", "in @shell/call_1\nadd EOF \"print('more')\"\n")
			if err == nil {
				t.Fatal("the edit succeeded on a broken file system")
			}
			msg := err.Error()
			if strings.Contains(msg, e.runtime) || strings.Contains(msg, ".hpatch-tmp") || strings.Contains(msg, "hpatch-T1") || strings.Contains(msg, "scripts") {
				t.Fatalf("the message shows storage names: %q", msg)
			}
			if !strings.HasSuffix(msg, c.want) {
				t.Fatalf("message %q, want it to end %q", msg, c.want)
			}
			if !errors.Is(err, c.cause) {
				t.Fatalf("errors.Is(%v, %v) is false: the cause must stay reachable", err, c.cause)
			}
			if after := tree(t, e.scriptsDir("T1")); !equal(before, after) {
				t.Fatalf("a failed edit changed the scripts:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// mountTmpfs mounts a tmpfs with opts on the runtime directory for the
// test. Mounting needs root (CI runs as root): without it the test skips,
// or fails under CI=true.
func mountTmpfs(t *testing.T, opts string) func(string) {
	return func(dir string) {
		t.Helper()
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts+",mode=0755"); err != nil {
			testenv.Missing(t, "root", "mounting a tmpfs (a real full or read-only file system): %v", err)
		}
		t.Cleanup(func() {
			if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
				t.Errorf("unmount %s: %v", dir, err)
			}
		})
	}
}

// fillDisk writes a file until the runtime's file system is full.
func fillDisk(t *testing.T, e *env) {
	t.Helper()
	f, err := os.Create(filepath.Join(e.runtime, "filler"))
	must(t, err)
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			return
		}
	}
}

// remountReadOnly makes the runtime's file system read-only.
func remountReadOnly(t *testing.T, e *env) {
	t.Helper()
	must(t, syscall.Mount("", e.runtime, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""))
}
