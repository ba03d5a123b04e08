// Package jsonline owns how hpatch-router writes a JSON value as text for
// a person or a model to read: compact, on one line, with <, > and & kept
// as they are (encoding/json would write \u003c, \u003e and \u0026, which
// a path or a script reads worse), and without the final newline an
// encoder adds.
//
// A file's path in a listing row (package rows), a value in a #!params
// diagnostic (package shebang), a declared tool's definition (package
// plugins/registry) and inspect_file's answer are all written this way.
//
// AppendSerdeString is the second meaning, kept beside the first so one
// package owns JSON text: a string as serde_json (Codex) writes it, byte
// for byte, for the request bytes the router re-encodes and its error
// bodies.
//
// The package is a leaf (standard library only) so that each can import it.
package jsonline
