// Package privname owns the names of the private commands: the router's
// in-process commands (hread, hgrep, hsymbol, inspect_file and
// hpatch-write) that exist only inside the worker's shell evaluation, with
// no basename frontend on disk.
//
// Three packages must agree on them without importing each other:
// shebang, which never sends a call to one as a direct native command (it
// would not be found outside the worker); the worker, whose dispatch table
// and limits (worker/privcmd.Bounds) are keyed by them; and the router,
// which runs hpatch-write for a workspace edit. The package is a leaf that
// imports nothing.
package privname
