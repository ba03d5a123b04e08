package response

import (
	"context"

	"hpatch-router/retain"

	"hpatch-router/shebang"
)

// The parts of the router a session calls, each as small as the session
// needs; the router's own implementations satisfy them (and tests' fakes
// of translation and scripts).

// Translator is the part of package shebang the response rewrite uses. It
// is an interface so tests can pin carrier text and so the rewrite does not
// depend on how translation is spelled.
type Translator interface {
	// Translate turns one shell input into a plan (errors: rejection),
	// given the request's exec_command arguments (nil: none recognized).
	Translate(input string, params []shebang.Param) (*shebang.Plan, error)
	// Carrier renders the exec JavaScript for a plan.
	Carrier(p *shebang.Plan, r shebang.Retention) string
	// Rejection renders the carrier that only prints why nothing ran.
	Rejection(err error) string
	// Retains reports whether a carrier Carrier rendered told the model
	// that its input is retained as ref.
	Retains(carrier, ref string) bool
	// ScriptReference recognises a `#!script=@shell/<id>` rerun.
	ScriptReference(input string) (id string, ok bool)
	// AnnotateExec adds the one-time notice to model exec JavaScript that
	// calls tools.exec_command directly.
	AnnotateExec(js string) (string, bool)
}

// Scripts is what the rewrite uses of the retained-script store (package
// retain): a shell call's script is staged while its call streams, a
// rerun resolves its reference, an hpatch edit is checked and staged, and
// a call sent again is staged again (restage).
type Scripts interface {
	Stage(ctx context.Context, thread, id, content string) (ref string, err error)
	Resolve(ctx context.Context, thread, ref string) (content string, err error)
	StageEdit(ctx context.Context, thread, callID, patch string) (report string, err error)
	StagedCall(thread, callID string) bool
	Settle(ctx context.Context, thread string, state func(callID string) retain.CallState) []retain.Committed
}

// Runtime makes sure of a thread's runtime before the first carrier of a
// response that runs the worker.
type Runtime interface {
	Ensure(ctx context.Context, thread string) error
}

// Metrics counts what the rewrite makes of a response's calls.
type Metrics interface {
	Carrier()
	HpatchCall()
	ToolCall(name string)
	ExecAnnotated()
	Rejection(reason string)
	Replay(outcome string)
	ShellCall(kind, interpreter string, warnings int)
}

// Observers receives the call and rejection events of the rewrite.
type Observers interface {
	// Active reports whether any observer listens, so the session skips
	// building events nobody reads.
	Active() bool
	ShellCall(CallEvent)
	// Observe reports a refused call, stamped with the time now.
	Observe(RejectionEvent)
}
