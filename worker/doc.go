// Package worker owns the runtime that executes carriers: the runtime root,
// per-thread directories and their authentication (snapshot digest and
// launcher link), and the worker process that the fixed `shell` helper
// execs into. Bash and sh bodies run in-process with mvdan/sh; other
// interpreters read the exact body from an anonymous descriptor. Private
// commands (hread, hgrep, hsymbol, inspect_file) live in subpackages and run
// in-process inside the shell evaluation.
package worker
