package response

import (
	"errors"
	"strconv"
	"time"

	"hpatch-router/hpatch"
	"hpatch-router/rows"
	"hpatch-router/shebang"
	"hpatch-router/workspace"
)

// CallEvent describes one model `shell` call the router answered with an
// exec carrier. It is what an Observer (e.g. the dashboard) sees; it never
// carries credentials, and carries the script body only when the router was
// built with bodies enabled (router.WithObserverBodies).
type CallEvent struct {
	Time        time.Time     // when the carrier was emitted
	Thread      string        // the request's thread id ("" when absent)
	CallID      string        // the model's call_id
	Kind        string        // direct, worker, template, rerun or recovered
	Interpreter string        // interpreter named by the shebang ("" for none); its sanitized basename unless bodies are enabled
	Duration    time.Duration // from the upstream response start until the carrier was emitted
	Warnings    []string      // shell warnings placed in the carrier
	ScriptRef   string        // "@shell/<id>" when the script was retained
	// ModelBytes is the size of the shell input the model wrote;
	// CarrierBytes the size of the exec JavaScript that replaced it.
	ModelBytes, CarrierBytes int
	Body                     string // the model's shell input; only filled when bodies are enabled
	// Tool names the declared tool called ("" for shell).
	Tool string
}

// RejectionEvent describes a call or request the router refused: a request
// layout it cannot rewrite (Code is one of package router's Code* constants) or a shell
// or hpatch call answered with a diagnostic carrier (Code is the rejection
// reason, e.g. "translate", "script_reference", "runtime", "hpatch"). A
// rejected call is reported only here, never as a CallEvent.
type RejectionEvent struct {
	Time   time.Time
	Thread string
	CallID string // the model's call_id for a rejected call; "" for a request
	Code   string
	// Reason is one line that never quotes the model's script: for a
	// diagnostic that may (a stale hpatch row, a shebang field), only the
	// tool, the line it concerns and that it was rejected.
	Reason string
	// Detail is the whole one-line diagnostic as the model read it; only
	// filled when bodies are enabled and it differs from Reason.
	Detail string
}

// callRejection is the event of a model call answered with the diagnostic
// err. Detail is the diagnostic as the model reads it, one line starting
// with tool ("shell"/"hpatch"). When it may quote the script (quotesScript:
// a translation, script reference or hpatch diagnostic), Reason keeps only
// what is script-free; otherwise (the router's own messages) Reason is the
// diagnostic itself.
func callRejection(thread, callID, code, tool string, err error, quotesScript bool) RejectionEvent {
	detail := tool + ": " + rows.OneLineSpaced(err.Error()) // errors never carry the prefix
	e := RejectionEvent{Thread: thread, CallID: callID, Code: code, Reason: detail, Detail: detail}
	if quotesScript {
		e.Reason = scriptFreeReason(tool, err)
	}
	return e
}

// scriptFreeReason says that a call of tool was rejected, and on which
// line of its input when the diagnostic tells, without any of its text.
func scriptFreeReason(tool string, err error) string {
	line, habit := 0, shebang.HabitNone
	var d *shebang.Diagnostic
	var p *hpatch.Error
	switch {
	case errors.As(err, &d):
		line, habit = d.Line, d.Habit
	case errors.As(err, &p):
		line = p.Line
	}
	at := ""
	if line > 0 {
		at = "line " + strconv.Itoa(line) + ": "
	}
	if habit != shebang.HabitNone { // a fixed name, never the model's text
		at += string(habit) + " "
	}
	return tool + ": " + at + "rejected (the diagnostic may quote the script, so it is shown only with bodies enabled)"
}

// Turn is where the turn a request belongs to runs, as Codex declared it
// in that request: the cwd and workspace roots of the last
// environment_context item Codex wrote in its input, and sandbox_mode from
// its x-codex-turn-metadata header. A workspace hpatch call resolves its
// paths against these (never against the router's own cwd); the sandbox
// mode is recorded with the call, since Codex's sandbox, not the router,
// decides whether the write may happen.
type Turn struct {
	Env     workspace.Env
	Sandbox string
}
