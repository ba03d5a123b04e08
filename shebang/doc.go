// Package shebang is the pure translation of one model-written `shell` tool
// input into a Code Mode exec carrier (REQ-SHELL-001 A1–A8, A10, A12, A16).
//
// It owns shebang and selector parsing, the leading directive block
// (#!cmd=, #!params=), direct-command eligibility, quoting of the visible
// `shell …` command, the exec_command argument object, the carrier
// JavaScript, argv limits, warnings and the retention-eligibility fact.
// It performs no I/O and imports nothing of this module but the leaves:
// rows (the line rule), scriptref (the `@shell/<id>` reference grammar),
// privname (the private command names, never direct) and shebang/oneline,
// which writes the `shell …` command on one line every POSIX shell reads
// alike and which the `shell` helper decodes; a word Bash alone reads back
// (a private call, a rewritten habit) is quoted by shebang/bashquote. The
// router decides what to do with a Plan, the worker runs what the Plan's
// argv names.
//
// It also owns a grammar others import: the #!params shape of an
// exec_command declaration (ParseParamsShape; the router appends it to the
// shell description, Translate validates #!params keys against its names).
//
// Shells: Codex runs cmd with the user's passwd shell (bash, zsh, or sh —
// dash on Debian — else bash). The worker command reads the same under all
// of them and is left to that shell. Direct commands and #!cmd= templates
// are the model's own Bash, so when the request's exec_command shape offers
// a `shell` argument and #!params names none, their arguments pin
// "shell":"bash". A #!params shell must be a POSIX-family shell (sh, bash,
// dash, zsh, ksh, mksh, ash, yash, posh); it then runs the carrier.
//
// The router's use, in order:
//
//   - scriptref.ScriptReference(input): a sole `#!script=@shell/<id>` line
//     is a rerun; the router resolves the id, calls Translate on the stored
//     content and sets Kind to KindRerun.
//   - Translate(input, Options{Params: …}) gives a *Plan or a
//     *Diagnostic; RejectionCarrier(err) is the carrier for a rejection.
//   - Plan.Carrier(Retention{…}) is the exec JavaScript, once the router
//     knows whether it retained the input (only if Plan.Retainable).
//   - AnnotateExec(js) adds the one notice to a model `exec` call that
//     calls tools.exec_command itself.
//
// # Script references
//
// The reference grammar is package scriptref's. Translate answers a sole
// `#!script=` line (scriptref.Directive) that scriptref.ScriptReference
// does not take as a rerun with a line 1 diagnostic that says what is
// wrong (a blank, a separator, a temporary name, a missing @shell/), and a
// valid one, which only a caller holding the retained scripts can resolve,
// with a diagnostic saying so; a `#!script=` directive among other lines
// is rejected too.
//
// Output budget (pragma.go): ExecPragma turns an exec_command argument
// object that sets max_output_tokens or yield_time_ms into the first-line
// `// @exec:` pragma that raises the Code Mode cell's own budgets, with room
// for the result JSON; Plan.Carrier writes it, and a tool plugin's carrier
// gets it from the same function. A carrier without those arguments is
// unchanged.
//
// Errors are values without a tool prefix: *Diagnostic ("line N: …"). The
// edge adds "shell: " once: RejectionCarrier for the
// router's carrier, the translate CLI on stderr.
//
// Header edges: a UTF-8 byte order mark before a shebang or a leading
// directive is ignored (it belongs to the first line, which never reaches
// the body; the retained input and the replayed call keep it as written);
// before Bash text it stays body text, with a note. `#!` lines that follow
// only blank lines at the body's start are body data (REQ-SHELL-001) and get
// a note that names their line; at the start of the input, though, blank
// lines before a shebang or a leading directive are ignored (a habit, below).
//
// Habits (issue 25, habits.go, nearmiss.go): what a model sends by habit
// from other tools never runs silently. A Markdown fence (``` or ~~~)
// that ends the input and whose language names an interpreter (or none)
// runs as that program: comments, prose and a BOM in front of it are
// dropped, a shebang and directives in front of it kept, `$ ` prompts
// taken off its commands (a console transcript's output dropped), and a
// fence inside one of its heredocs is data; blank lines before the header are dropped; a directive spelled
// slightly wrong (`#!cmd TEMPLATE`, `!params {…}`) is read as the
// directive when its value shows the intent. Each of these is a
// KindRecovered plan with its Habit and a note first, not retained, like
// recovered JavaScript. A JSON wrapper, an apply_patch envelope, a unified
// diff, any other fence and a near miss that does not show its intent are
// refused with a *Diagnostic whose Habit says which. ForeignSyntax, the
// recognizer of the foreign shapes, is also package retain's for hpatch.
// The rules look at how an input starts and at fence lines: Bash that
// starts with none of the markers and has no line starting with ``` or
// ~~~ outside a heredoc or a quoted string is never touched
// (FuzzHabitsLeaveBashAlone).
//
// Warnings (A16, warn.go): each simple command is read as its program reads
// it. Prefix commands (sudo, env, timeout, xargs, …) are skipped with the
// options that take values; an interpreter's options are read up to its
// first operand, so only an inline program (-c, -e, --eval, deno eval,
// psql -c, a sqlite3 SQL argument) or a program on stdin (heredoc,
// here-string with no script operand) warns; `bash -c '…'` programs are
// scanned in turn.
//
// Recovered JavaScript (A16, javascript.go): an input without shebang or
// directives is Code Mode JavaScript only when it parses as the body of
// Code Mode's async function (github.com/tdewolff/parse/v2/js), every
// top-level expression statement does something (a call, an assignment,
// await, …), and it calls tools.NAME(…) and a projection (text, image,
// JSON.stringify). node is not available to the router at run time;
// javascript_test.go compiles every case and fuzz seed the recognizer
// accepts in node, and a fuzz target checks that shell commands quoting
// arbitrary text are never recognized. Shell that mentions JavaScript
// (`rg -n "await tools.exec_command("`, a heredoc that writes a .mjs, a grep
// pattern) fails the first or second rule.
//
// Quoting is proven by execution (semantic_test.go runs every rendered cmd
// through bash, zsh, dash and sh -c, in the C and a UTF-8 locale, with a
// stub `shell` that decodes like the helper) and the carrier by evaluation
// in node (node_test.go). `hpatch-router translate` exposes Translate on the
// command line.
package shebang
