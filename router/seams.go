package router

import (
	"context"

	"hpatch-router/retain"
	"hpatch-router/router/response"
	"hpatch-router/scriptref"
	"hpatch-router/shebang"
)

// The seams through which the router calls what other packages own: the
// thread runtime (package worker), the retained scripts (package retain),
// and translation (package shebang). Production wires the real ones in
// New; tests replace them with fakes. The request stage (package request)
// is no seam: serveResponses calls it directly.

// Runtime prepares the per-thread runtime directory that the `shell` helper
// resolves (package worker implements it). Every request that names a
// thread prepares it (threadRuntime.Ensure), and so does a response before its
// first worker carrier; once verified it costs two lstats.
type Runtime interface {
	PrepareThread(ctx context.Context, thread string) error
}

// threadCreator is a Runtime that also says whether PrepareThread created
// the thread's directory (package worker's does), so the router knows
// when to restore the thread's scripts.
type threadCreator interface {
	PrepareThreadCreated(ctx context.Context, thread string) (created bool, err error)
}

// Scripts is the retained-script store (package retain implements it). A
// retention or edit is staged while its call streams and settled when a
// later request of the thread says whether the call ran (DESIGN §8).
type Scripts interface {
	// Stage stages content as artifact id of thread and returns its
	// reference "@shell/<id>". Any error means retained:false; execution
	// of the call is not changed by it.
	Stage(ctx context.Context, thread, id, content string) (ref string, err error)
	// Resolve returns the current content of a "@shell/<id>" reference:
	// its newest staged version, or else the retained file.
	Resolve(ctx context.Context, thread, ref string) (content string, err error)
	// StageEdit checks hpatch edit patch of call callID and stages it; it
	// returns the report the model sees.
	StageEdit(ctx context.Context, thread, callID, patch string) (report string, err error)
	// Staged reports whether thread has changes waiting for their calls.
	Staged(thread string) bool
	// StagedCall reports whether call callID of thread has a change staged.
	StagedCall(thread, callID string) bool
	// Settle writes the staged changes whose calls ran, discards those
	// aborted or gone (with what was staged on top) and returns the
	// changes written, for the journal.
	Settle(ctx context.Context, thread string, state func(callID string) retain.CallState) []retain.Committed
	// Reconcile makes the scripts of thread the versions history gives
	// (its changes whose calls ran, in order) and returns the changes
	// that applied, for the journal, and the scripts whose version no
	// source gives, with why (their reruns are refused).
	Reconcile(ctx context.Context, thread string, history []retain.Committed) ([]retain.Committed, map[string]string)
	// Restore puts back the scripts of thread whose hour has not passed,
	// from its journaled history of changes written, and returns how many
	// it wrote.
	Restore(ctx context.Context, thread string, history []retain.Committed) int
}

// translator is the part of package shebang the rewrite uses (package
// response owns its definition); tests pin carrier text through it.
type translator = response.Translator

// shebangTranslator is the production translator.
type shebangTranslator struct{}

func (shebangTranslator) Translate(input string, params []shebang.Param) (*shebang.Plan, error) {
	if len(params) == 0 {
		params = nil // no recognized shape: accept any #!params key
	}
	return shebang.Translate(input, shebang.Options{Params: params})
}

func (shebangTranslator) Carrier(p *shebang.Plan, r shebang.Retention) string { return p.Carrier(r) }

func (shebangTranslator) Rejection(err error) string { return shebang.RejectionCarrier(err) }

func (shebangTranslator) Retains(carrier, ref string) bool {
	return shebang.CarrierRetains(carrier, ref)
}

func (shebangTranslator) ScriptReference(input string) (string, bool) {
	return scriptref.ScriptReference(input)
}

func (shebangTranslator) AnnotateExec(js string) (string, bool) { return shebang.AnnotateExec(js) }
