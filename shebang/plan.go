package shebang

// Kind says how a shell input runs.
type Kind string

const (
	// KindDirect: implicit Bash, one simple external command; cmd is the
	// command text itself, no helper.
	KindDirect Kind = "direct"
	// KindWorker: `shell <interpreter fields…> <body>` is the whole command.
	KindWorker Kind = "worker"
	// KindTemplate: a #!cmd= template with {.} replaced by the worker command.
	KindTemplate Kind = "template"
	// KindRerun: a #!script=@shell/<id> reference resolved by the caller
	// (see scriptref.ScriptReference) and translated anew; set by the caller.
	KindRerun Kind = "rerun"
	// KindRecovered: the input was written in another tool's habit (Habit
	// says which) and runs as the program the model meant, preceded by a
	// note. Code Mode JavaScript is sent as the exec carrier unchanged
	// (Script); any other recovered input runs like a direct, worker or
	// template plan (Cmd, Args, and Argv when it runs the worker).
	KindRecovered Kind = "recovered"
)

// Plan is the result of translating one shell input.
type Plan struct {
	Kind Kind
	// Interpreter is the normalized selector: "bash" or "sh" for the
	// mvdan/sh evaluations (whatever path spelled them), otherwise the first
	// interpreter field as written after env/-S removal (e.g. "python3",
	// "/opt/python/bin/python3"). Empty for recovered JavaScript.
	Interpreter string
	// Argv is the worker argv after the word `shell`: the normalized
	// interpreter fields followed by the exact body. Nil for direct plans
	// and recovered JavaScript.
	Argv []string
	// Body is the exact script body (for retention and metrics).
	Body string
	// Cmd is the exec_command `cmd` string Codex's shell will run.
	Cmd string
	// Args is the exec_command argument object as compact JSON: cmd, the
	// #!params fields, and login:false unless params gave it.
	Args []byte
	// Warnings are the A16 notices, one per distinct detected kind, in the
	// order they are emitted into the carrier.
	Warnings []string
	// Retainable reports retention eligibility: every non-bash/sh
	// interpreter, and bash/sh inputs of more than three lines.
	Retainable bool
	// Script is the JavaScript of a recovered Code Mode plan, unchanged.
	Script string
	// Habit is what a recovered plan was written as (KindRecovered only).
	Habit Habit
}

// RunsWorker reports a plan whose command starts the helper and so needs
// the thread's runtime: a worker or template plan, recovered or not.
func (p *Plan) RunsWorker() bool {
	return p.Kind == KindWorker || p.Kind == KindTemplate || p.Kind == KindRecovered && p.Argv != nil
}

// Retention is what the caller decided about retaining the input; it is
// forwarded to the model through the carrier projection.
type Retention struct {
	Retained  bool
	ScriptRef string // "@shell/<id>" when Retained
}
