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
// costs the router outside the proxy: the worker runtime's
// PrepareThread and the store's Stage and Settle for the response's thread,
// given what the runtime saw as the router gives it, on the runtime root
// serve would use (under $XDG_RUNTIME_DIR when set, else the temp dir:
// set TMPDIR to compare file systems). thread=young is a few responses
// old, as early in a conversation; thread=old has retained 10,000 scripts
// first, as the latency benchmark's threads have (one thread per client
// for thousands of responses): its scripts directory, the store's
// per-thread records and expiry timers are that large, so a cost that
// grows with a thread's age shows as the difference between the two.
//
// caches=cold runs the old thread's responses with the CPU caches swept
// between two of them (outside the timed part), as a whole request's work
// sweeps them in the proxy. The hooks are system calls on file system
// paths a warm loop keeps cached; cold, they cost several times more,
// which is most of the gap between this benchmark's warm figure and what
// the hooks add to BenchmarkLatency.
func BenchmarkThreadHooks(b *testing.B) {
	for _, c := range []struct {
		name     string
		retained int
		cold     bool
	}{{"thread=young", 3, false}, {"thread=old", 10_000, false}, {"thread=old/caches=cold", 10_000, true}} {
		b.Run(c.name, func(b *testing.B) {
			rt, store := benchRuntime(b)
			ctx := context.Background()
			const thread = "bench"
			for i := range c.retained {
				retainOne(b, ctx, rt, store, thread, "warm_"+strconv.Itoa(i))
			}
			time.Sleep(200 * time.Millisecond) // the thread directory's creation is past
			var sweep []byte
			if c.cold {
				sweep = make([]byte, cacheSweepBytes)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if c.cold {
					b.StopTimer()
					sweepCaches(sweep)
					b.StartTimer()
				}
				retainOne(b, ctx, rt, store, thread, "call_"+strconv.Itoa(i))
			}
		})
	}
}

// cacheSweepBytes is twice a core's L2 cache on the 2-vCPU machines the
// benchmarks run on (2 MiB): a request's work between two responses
// evicts at least that. Swept this far, the hooks cost about what a CPU
// profile of BenchmarkLatency attributes to them on such a machine (34 µs
// against 9 µs warm, and 35 µs in the profile, with unnamed files and one
// look per call; 45 µs, 15 µs warm and 47 µs before).
const cacheSweepBytes = 4 << 20

// sweepCaches writes one byte per cache line of buf, evicting what the
// caches held.
func sweepCaches(buf []byte) {
	for i := 0; i < len(buf); i += 64 {
		buf[i]++
	}
}

// retainOne does what a response with one retained shell call, and the
// request after it that carries the call's output, do to its thread:
// prepare the runtime, stage the script, then write it.
func retainOne(b *testing.B, ctx context.Context, rt *worker.Runtime, store *retain.Store, thread, id string) {
	const script = "#!python3\nimport sys\nfor i in range(3):\n    print(i, file=sys.stderr)\n"
	if err := rt.PrepareThread(ctx, thread); err != nil {
		b.Fatal(err)
	}
	if _, err := store.Stage(ctx, thread, id, script); err != nil {
		b.Fatal(err)
	}
	if ran := store.Settle(ctx, thread, func(string) retain.CallState { return retain.CallRan }); len(ran) != 1 {
		b.Fatalf("%d changes written, want 1", len(ran))
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
