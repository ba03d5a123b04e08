// Package shebang is the pure translation of one model-written `shell` tool
// input into a Code Mode exec carrier (REQ-SHELL-001 A1–A8, A10, A12, A16).
//
// It owns shebang and selector parsing, the leading directive block
// (#!cmd=, #!params=), direct-command eligibility, quoting of the visible
// `shell …` command, the exec_command argument object, the carrier
// JavaScript, argv limits, warnings and the retention-eligibility fact.
// It performs no I/O and imports nothing of this module: the router decides
// what to do with a Plan, the worker runs what the Plan's argv names.
package shebang
