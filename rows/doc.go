// Package rows owns the one line rule of hpatch-router: where a row of
// text ends, how rows are numbered, and the row hash that hread, hgrep,
// hsymbol, inspect_file and the hpatch grammar cite them by.
//
// A row ends at LF, CRLF or a lone CR (REQ-SHELL-001 treats each as one
// terminator, so "#!python3\r\nbody" has the body "body"); a final
// terminator does not start an empty row, and empty input has no rows.
// Rows are numbered from 1. The row hash is the first 2 bytes of SHA-256
// of the row's text (without its terminator) as 4 lowercase hex digits,
// and a row is cited as LINE:HASH. The row that holds a byte offset is
// At for one question, an Index for many.
//
// It also owns how a text is written on one line, in its two meanings:
// OneLineSpaced (each terminator becomes a space, for prose such as a
// diagnostic) and OneLineEscaped (LF and CR written as \n and \r, for a
// text the reader must still see exactly, such as a quoted argument).
//
// It also owns how a listing of rows from several files prints one
// (print.go): `"PATH":LINE:HASH TEXT`, the path a JSON string as package
// jsonline writes one (QuotePath),
// so hgrep and hsymbol print the same rows without importing each other.
//
// The package is a leaf that imports only the standard library and the
// leaf jsonline, so the
// shebang translator, the retained-script store and the worker's private
// commands share the rule without importing each other.
package rows
