// Package privcmd is the contract between the worker's shell evaluation and
// the private commands it runs in-process (hread, hgrep, hsymbol,
// inspect_file, hpatch-write; package privname owns their names).
// Commands import it, the worker dispatches to them, and neither imports
// the other.
//
// It owns the commands' limits (limits.go: input, output, time, memory and
// nesting depth, each value with its reason; Bounds is the table the worker
// dispatches with), the one way they open files the model names
// (file.go: opened by package regfile's rule, at most Limits.Input bytes
// as one snapshot; Cause, what went wrong with one, without Go's operation
// and absolute path; CannotRead, the one line when one cannot be read), the
// one way they find the program of a child process (Env.LookPath: on the
// evaluation's PATH, from its directory) and the one way they start it
// (Start: it dies with the worker). It also owns what every command does when it stops
// early: ExitTruncated, the status of an answer the Output limit cut,
// ExitTimeLimit, the status of one the Time limit stopped, and
// Word, how a notice writes a file name in the command it suggests (in
// Bash's $'…' escapes when the name holds a line break or control byte).
package privcmd
