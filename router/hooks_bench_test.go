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
// set TMPDIR to compare file systems). thread=young is a few responses
// old, as early in a conversation; thread=old has retained 10,000 scripts
// first, as the latency benchmark's threads have (one thread per client
// for thousands of responses): its scripts directory, the store's
// per-thread records and expiry timers are that large, so a cost that
// grows with a thread's age shows as the difference between the two.
func BenchmarkThreadHooks(b *testing.B) {
	for _, age := range []struct {
		name     string
		retained int
	}{{"young", 3}, {"old", 10_000}} {
		b.Run("thread="+age.name, func(b *testing.B) {
			rt, store := benchRuntime(b)
			ctx := context.Background()
			const thread = "bench"
			for i := range age.retained {
				retainOne(b, ctx, rt, store, thread, "warm_"+strconv.Itoa(i))
			}
			time.Sleep(200 * time.Millisecond) // the thread directory's creation is past
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				retainOne(b, ctx, rt, store, thread, "call_"+strconv.Itoa(i))
			}
		})
	}
}

// retainOne does what a response with one retained shell call does to its
// thread: prepare the runtime, retain the script.
func retainOne(b *testing.B, ctx context.Context, rt *worker.Runtime, store *retain.Store, thread, id string) {
	const script = "#!python3\nimport sys\nfor i in range(3):\n    print(i, file=sys.stderr)\n"
	if err := rt.PrepareThread(ctx, thread); err != nil {
		b.Fatal(err)
	}
	if _, err := store.Retain(ctx, thread, id, script); err != nil {
		b.Fatal(err)
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
