package history

import (
	"context"
	"log/slog"

	"hpatch-router/retain"
	"hpatch-router/router/request"
	"hpatch-router/router/threadstate"
)

// Scripts is what the stage uses of the retained-script store (package
// retain implements it).
type Scripts interface {
	// Staged reports whether thread has changes waiting for their calls.
	Staged(thread string) bool
	// Settle writes the staged changes whose calls ran, discards those
	// aborted or gone (with what was staged on top) and returns the
	// changes written, for the journal.
	Settle(ctx context.Context, thread string, state func(callID string) retain.CallState) []retain.Committed
	// Reconcile makes the scripts of thread the versions history gives
	// (its changes whose calls ran, in order) and returns the changes
	// that applied, for the journal, and the scripts whose version no
	// source gives, with why.
	Reconcile(ctx context.Context, thread string, history []retain.Committed) ([]retain.Committed, map[string]string)
	// Restore puts back the scripts of thread whose hour has not passed,
	// from its journaled history of changes written, and returns how many
	// it wrote.
	Restore(ctx context.Context, thread string, history []retain.Committed) int
}

// Translator says whether a carrier told the model that its shell input
// is retained as ref (package shebang renders and reads carriers).
type Translator interface {
	Retains(carrier, ref string) bool
}

// Metrics counts what the stage did.
type Metrics interface {
	// Replay counts one outcome of restoring or reconciling a call:
	// restored, mismatch, unrestorable, version_unknown, store_error.
	Replay(outcome string)
	// Committed counts changes written because their calls ran.
	Committed(n int)
	// RestoredScripts counts scripts put back from the journal.
	RestoredScripts(n int)
}

// Stage is the history stage of one router.
type Stage struct {
	store   *threadstate.Store
	scripts Scripts // nil: no retained scripts (only carriers restore)
	tr      Translator
	metrics Metrics
	log     *slog.Logger
}

// New builds the stage over the thread state and the scripts (nil when
// the router keeps none).
func New(store *threadstate.Store, scripts Scripts, tr Translator, m Metrics, log *slog.Logger) *Stage {
	return &Stage{store: store, scripts: scripts, tr: tr, metrics: m, log: log}
}

// Turn is one request as the stage reads it.
type Turn struct {
	// Thread is the request's valid thread id, or "" (nothing to do).
	Thread string
	// Req is the parsed body; nil for a compaction body that is not a
	// JSON object (only the scripts a restart took are put back).
	Req *request.Parsed
	// Created says the runtime just made the thread's directory again:
	// its retained scripts went with the old one.
	Created bool
	// Streaming says a response of the thread is being rewritten now: a
	// call missing from the input may be one of its own, so none is
	// taken as gone.
	Streaming bool
}

// Apply runs the stage for one request and returns the edits that
// restore the carriers Codex echoes in the request's input, in body
// order. Its error is a *MismatchError or a *request.Error; the request
// is then refused, after the thread's scripts were brought up to date.
func (s *Stage) Apply(ctx context.Context, t Turn) ([]request.Edit, error) {
	if t.Thread == "" {
		return nil, nil
	}
	s.restoreScripts(ctx, t.Thread, t.Created)
	if t.Req == nil {
		return nil, nil
	}
	s.settle(ctx, t.Thread, t.Req, t.Streaming)
	s.reconcile(ctx, t.Thread, t.Req)
	return s.restoreEdits(t.Thread, t.Req)
}

// commit journals changes written; a failure is logged and counted, and
// the changes stay written.
func (s *Stage) commit(thread string, changes []retain.Committed) {
	if err := s.store.Commit(thread, changes); err != nil {
		s.metrics.Replay("store_error")
		s.log.Error("cannot journal the changes written", "err", err)
	}
}
