//go:build linux

package worker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"hpatch-router/ident"
	"hpatch-router/worker"
	"hpatch-router/worker/snapshot"
)

// TestRootLockRefusesASecondRuntime: with WithRootLock, a second runtime
// on a root another one holds is refused before it touches the root (no
// snapshot of its own, the first one's thread untouched), naming the
// holder; once the first closes, the root is taken over.
func TestRootLockRefusesASecondRuntime(t *testing.T) {
	root := t.TempDir()
	first, err := worker.NewRuntime(root, worker.WithExecutable(built.router), worker.WithRootLock("127.0.0.1:8080"))
	must(t, err)
	must(t, first.PrepareThread(context.Background(), "th-1"))
	before, _ := os.ReadDir(root)

	_, err = worker.NewRuntime(root, worker.WithExecutable(built.router), worker.WithRootLock("127.0.0.1:8095"))
	var held *snapshot.HeldError
	if !errors.As(err, &held) || held.Holder != (snapshot.Holder{PID: os.Getpid(), Addr: "127.0.0.1:8080"}) {
		t.Fatalf("second runtime: %v, want a HeldError naming this process on 127.0.0.1:8080", err)
	}
	if after, _ := os.ReadDir(root); len(after) != len(before) {
		t.Errorf("the refused runtime changed the root: %d entries, then %d", len(before), len(after))
	}
	if _, err := os.Lstat(filepath.Join(root, ident.ThreadDirName("th-1"), ident.RuntimeLink)); err != nil {
		t.Errorf("the first runtime's thread: %v", err)
	}
	must(t, first.Close())
	second, err := worker.NewRuntime(root, worker.WithExecutable(built.router), worker.WithRootLock("127.0.0.1:8095"))
	if err != nil {
		t.Fatalf("the released root is not taken over: %v", err)
	}
	must(t, second.Close())
}
