//go:build linux

package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/ident"
	"hpatch-router/worker"
	"hpatch-router/worker/snapshot"
)

// TestRuntimeRootMadeAgain (issue 33 case 3): the runtime root, or one
// thread's directory, is removed while the runtime runs. The next
// PrepareThread makes the root again (0700, locked again, the snapshot and
// launcher written again) and the thread's directory, and says it created
// it, so the router restores the thread's scripts; the one after that
// finds it as it left it. A root made again by someone else that group or
// others can write is refused, as at startup.
func TestRuntimeRootMadeAgain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		remove  func(t *testing.T, root, threadDir string)
		wantErr string
	}{
		{name: "root removed", remove: func(t *testing.T, root, _ string) { must(t, os.RemoveAll(root)) }},
		{name: "thread directory removed", remove: func(t *testing.T, _, dir string) { must(t, os.RemoveAll(dir)) }},
		{name: "root made again writable by others", wantErr: "writable", remove: func(t *testing.T, root, _ string) {
			must(t, os.RemoveAll(root))
			must(t, os.Mkdir(root, 0o700))
			must(t, os.Chmod(root, 0o777))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			rt, err := worker.NewRuntime(root, worker.WithExecutable(built.router), worker.WithRootLock("127.0.0.1:8080"))
			must(t, err)
			t.Cleanup(func() { rt.Close() })
			ctx := context.Background()
			if created, err := rt.PrepareThreadCreated(ctx, "th-1"); err != nil || !created {
				t.Fatalf("first prepare: created %v, %v; want a new directory", created, err)
			}
			if created, err := rt.PrepareThreadCreated(ctx, "th-1"); err != nil || created {
				t.Fatalf("second prepare: created %v, %v; want the directory as it was", created, err)
			}
			threadDir := filepath.Join(root, ident.ThreadDirName("th-1"))
			tc.remove(t, root, threadDir)
			created, err := rt.PrepareThreadCreated(ctx, "th-1")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("prepare on a root others can write: %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !created {
				t.Fatalf("prepare after the removal: created %v, %v; want the directory made again", created, err)
			}
			fi, err := os.Lstat(root)
			if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
				t.Fatalf("root %v, %v; want a 0700 directory", fi, err)
			}
			exe, err := filepath.EvalSymlinks(filepath.Join(threadDir, ident.RuntimeLink))
			if want, _ := filepath.EvalSymlinks(built.router); err != nil || exe != want {
				t.Errorf(".runtime resolves to %q (%v), want the launcher target %q", exe, err, want)
			}
			if _, err := snapshot.Locate(root, "th-1", os.Getuid()); err != nil {
				t.Errorf("the helper cannot locate the runtime: %v", err)
			}
			if h, held, err := snapshot.RootHolder(root, os.Getuid()); err != nil || !held || h.PID != os.Getpid() {
				t.Errorf("root lock after the root was made again: %+v held %v, %v", h, held, err)
			}
			if created, err := rt.PrepareThreadCreated(ctx, "th-1"); err != nil || created {
				t.Errorf("prepare after that: created %v, %v; want the directory as it was", created, err)
			}
		})
	}
}
