// Package hpatch owns the hpatch edit language: its syntax (Parse, which
// accepts exactly the Lark grammar the `hpatch` tool declares), the parsed
// edit (Patch, Section, Op, Pos), and applying one parsed section to
// given bytes (Section.Apply: pure text editing against LINE:HASH
// citations, with the report the model reads next), and the one form of a
// rejected edit (*Error, "line N: …").
//
// It reads and writes no file. The retained-script store (package retain)
// and the workspace resolver (package workspace) both parse with it and
// give it the bytes of the file a section names; which files those are,
// and how new versions are written, is theirs. It is a leaf that imports
// only the standard library and the leaves rows (the line rule and row
// hash) and scriptref (the `@shell/<id>` of an `in` line), so the store
// and the resolver share the language without one importing the other
// for it.
//
// # Grammar
//
//	in @shell/<id>
//	type L:HASH "replacement"
//	type L:HASH..L:HASH <<PATCH
//	raw line one
//	raw line two
//	PATCH
//	add L:HASH "inserted line"
//	add EOF <<PATCH
//	appended
//	PATCH
//
// `in @shell/<id>` starts a section and must be followed by at least one
// `type` or `add` line; an edit may hold several, and several `in` lines
// for the same script merge into one section. The same grammar names
// workspace files (Patch.Workspace): `in PATH` followed by operations, by
// `mv DEST` and operations, or by `rm`; `new PATH` followed by one
// `type VALUE`, the file's exact content. PATH is one word that does not
// start with @ or `"`, or a JSON string. One edit holds scripts or files,
// never both. File sections stay one per `in`/`new` line as written: where
// a path points, and which sections name one file, is the workspace
// resolver's to decide (package workspace), and which ids a thread holds
// is the store's (package retain); this package applies the
// operations of one section to given bytes (Section.Apply). Blank lines,
// and spaces and tabs around words, are ignored (other white space is
// text). The `hpatch` tool declares this syntax as a Lark grammar
// (plugins/hpatch.lark) so the model API samples only edits that parse;
// grammar_test.go checks that Parse and that grammar agree on every
// edit the tests and fuzz corpus hold. The grammar takes any one word as
// an id; which words name a script is package ident's rule (through
// scriptref.ParseRef), and a range's order, which a grammar cannot compare,
// is Section.Apply's.
//
// TARGET is `L:HASH`, the inclusive range `L:HASH..L:HASH` (HASH = rows.Hash of
// the exact row), or a text target `"TEXT" [COUNT]`: the rows whose text
// contains TEXT (a JSON string within one row), exactly COUNT (default 1)
// of them, each targeted on its own; another number of matches rejects
// with the matching rows listed as LINE:HASH. DEST is `L:HASH`, a text
// target or `EOF`. VALUE is one JSON string (Go's
// JSON string syntax) or a `<<PATCH` heredoc: the raw lines up to a line
// that is exactly `PATCH`. VALUE is split into rows like rows.Split splits a file:
// "" and an empty heredoc are no rows, "x\n" is one row, "\n" is one empty
// row.
//
//   - `type TARGET VALUE` replaces the targeted rows by VALUE's rows; the
//     last new row keeps the last targeted row's terminator, the others get
//     the file's line ending. No rows (empty VALUE) deletes the targeted rows
//     with their terminators.
//   - `add DEST VALUE` inserts VALUE's rows (at least one) before DEST, each
//     with the file's line ending; `add EOF` appends. When the file lacks a
//     final line ending, its last row gets one and the appended text ends
//     without one instead. An empty row at the end of a file always gets a
//     terminator, since it could not exist without one.
//   - The file's line ending is its most frequent one (LF, CRLF or CR; ties
//     prefer LF, then CRLF; LF for a file without any).
//   - All targets are checked against one baseline: a range that ends
//     before it starts, a row past the end or a stale hash rejects the edit; two `type` targets that share a row
//     overlap and reject; an `add` before a row inside a replaced range (other
//     than its first row) rejects. Several adds at one insertion point
//     insert in the order written, and an add at the first row of a replaced
//     range inserts before the replacement.
//
// # Errors and report
//
// A rejected edit is an *Error: one line "line N: …" (Line 0 when the
// whole input is at fault) without a tool prefix (the router adds
// "hpatch: "); Err is the cause when there is one (a *scriptref.RefError,
// a store or file error), for errors.Is and errors.As. ErrorAt and WrapAt
// make one; the store and the resolver reject with them too.
//
// The report (Edit.Report; FormatReport joins them) lists, per file, the
// header (`@shell/<id>` or the path) and the written
// rows as `LINE:HASH TEXT` (new numbering, the hread row format) with one
// row of context before and after; `(deleted old rows A..B)` marks deleted
// rows where they were, `--` separates rows that are not adjacent, and
// `(empty)` marks a script left without rows.
package hpatch
