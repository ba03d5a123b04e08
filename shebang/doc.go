// Package shebang is the pure translation of one model-written `shell` tool
// input into a Code Mode exec carrier (REQ-SHELL-001 A1–A8, A10, A12, A16).
//
// It owns shebang and selector parsing, the leading directive block
// (#!cmd=, #!params=), direct-command eligibility, quoting of the visible
// `shell …` command, the exec_command argument object, the carrier
// JavaScript, argv limits, warnings and the retention-eligibility fact.
// It performs no I/O and imports nothing of this module: the router decides
// what to do with a Plan, the worker runs what the Plan's argv names.
//
// The router's use, in order:
//
//   - ScriptReference(input): a sole `#!script=@shell/<id>` line is a rerun;
//     the router resolves the id, calls Translate on the stored content and
//     sets Kind to KindRerun.
//   - Translate(input, Options{ParamsShape: …}) gives a *Plan or a
//     *Diagnostic; RejectionCarrier(err) is the carrier for a rejection.
//   - Plan.Carrier(Retention{…}) is the exec JavaScript, once the router
//     knows whether it retained the input (only if Plan.Retainable).
//   - AnnotateExec(js) adds the one notice to a model `exec` call that
//     calls tools.exec_command itself.
//
// Quoting is proven by execution (semantic_test.go runs every rendered cmd
// through bash with a recording stub) and the carrier by evaluation in node
// (node_test.go). `hpatch-router translate` exposes Translate on the
// command line.
package shebang
