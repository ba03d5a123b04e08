package router

import (
	"context"
	"log/slog"
	"time"

	"hpatch-router/retain"
	"hpatch-router/router/threadstate"
)

// recentThreadWindow is how long after its journal was last written a
// thread's runtime is prepared again when the router starts: the retained
// scripts' lifetime, the longest a carrier, a script reference or a cell
// of that thread is expected to outlive the response that sent it.
const recentThreadWindow = retain.DefaultTTL

// threadRuntime prepares a thread's runtime (the Runtime seam), for a
// request and for a response's worker carriers (rewriteDeps).
type threadRuntime struct {
	runtime Runtime // nil: no runtime to prepare
	log     *slog.Logger
}

// ensure makes sure the runtime of thread (a valid thread id from
// the request's thread-id header, or "") exists and links to this router.
// Every request does it, not only one whose response carries a worker
// carrier: Codex may run a carrier this thread got earlier (a cell that
// resumes after a restart, a carrier sent while the router was stopping)
// with no shell call in the response at hand. Once verified it costs the
// runtime two lstats. A failure is logged and returned; the request goes
// on, and a worker carrier of its response reports the cause to the model
// (rewriteSession.runtimeReady).
func (tr threadRuntime) Ensure(ctx context.Context, thread string) error {
	_, err := tr.prepare(ctx, thread)
	return err
}

// prepare is ensure, and also reports whether the runtime
// created the thread's directory (a runtime that cannot tell says no):
// then its retained scripts are restored from the journal
// (the history stage), since a directory removed while the router ran, alone
// or with the runtime root, took them with it.
func (tr threadRuntime) prepare(ctx context.Context, thread string) (created bool, err error) {
	if thread == "" || tr.runtime == nil {
		return false, nil
	}
	if c, ok := tr.runtime.(threadCreator); ok {
		created, err = c.PrepareThreadCreated(ctx, thread)
	} else {
		err = tr.runtime.PrepareThread(ctx, thread)
	}
	if err != nil {
		tr.log.Warn("cannot prepare the thread runtime", "err", err)
	}
	return created, err
}

// prepareRecent prepares, when the router starts, the runtime of
// every thread whose replay journal in store was written since the window
// before now: a carrier sent before a restart (graceful, kill -9 or an upgrade)
// then finds its runtime even when Codex runs it before the thread's next
// request reaches this router. The journals are the router's only record
// of which threads it served; without a state directory there is nothing
// to prepare.
func (tr threadRuntime) prepareRecent(ctx context.Context, store *threadstate.Store, now time.Time) {
	if tr.runtime == nil {
		return
	}
	threads := store.RecentThreads(now.Add(-recentThreadWindow))
	prepared := 0
	for _, thread := range threads {
		if err := tr.runtime.PrepareThread(ctx, thread); err != nil {
			tr.log.Warn("cannot prepare the runtime of a recent thread", "thread", thread, "err", err)
			continue
		}
		prepared++
	}
	if len(threads) > 0 {
		tr.log.Info("prepared the runtime of recent threads", "threads", prepared, "window", recentThreadWindow)
	}
}
