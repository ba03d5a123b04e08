//go:build unix

package router_test

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	"hpatch-router/retain"
	"hpatch-router/worker"
)

// BenchmarkThreadHooks is what a response with one retained shell call
// costs the router outside the proxy: the worker runtime's PrepareThread
// and the store's Retain for the response's thread, on the runtime root
// serve would use (under $XDG_RUNTIME_DIR when set, else the temp dir:
// set TMPDIR to compare file systems). The thread is a few responses old,
// as in a conversation.
func BenchmarkThreadHooks(b *testing.B) {
	rt, store := benchRuntime(b)
	ctx := context.Background()
	const thread, script = "bench", "#!python3\nimport sys\nfor i in range(3):\n    print(i, file=sys.stderr)\n"
	for i := range 3 {
		if err := rt.PrepareThread(ctx, thread); err != nil {
			b.Fatal(err)
		}
		if _, err := store.Retain(ctx, thread, "warm_"+strconv.Itoa(i), script); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond) // the thread directory's creation is past
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := rt.PrepareThread(ctx, thread); err != nil {
			b.Fatal(err)
		}
		if _, err := store.Retain(ctx, thread, "call_"+strconv.Itoa(i), script); err != nil {
			b.Fatal(err)
		}
	}
}

// benchRuntime makes the worker runtime and the retained-script store on a
// fresh runtime root where serve puts it by default (snapshot.Root): under
// $XDG_RUNTIME_DIR (tmpfs on a systemd login) when set, else under $TMPDIR
// or /tmp. Retaining costs more on a disk file system than on tmpfs.
func benchRuntime(b *testing.B) (*worker.Runtime, *retain.Store) {
	root := b.TempDir()
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		var err error
		if root, err = os.MkdirTemp(d, "hpatch-bench-"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(root) })
	}
	log := slog.New(slog.DiscardHandler)
	wr, err := worker.NewRuntime(root, worker.WithLogger(log))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { wr.Close() })
	store, err := retain.NewStore(root, retain.Logger(log))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	return wr, store
}
