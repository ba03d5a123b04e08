// Package retain owns retained `@shell/<id>` scripts: the per-thread
// scripts/ store confined with os.Root, expiry and shutdown cleanup,
// reference resolution, and the verified hpatch edit grammar applied to
// retained scripts.
//
// It applies rules other packages own and adds only its store rules: ids
// are checked by package ident (one rule for thread and artifact ids), the
// thread directory layout is package ident's too (hpatch-<thread>/scripts/),
// the reference grammar (`@shell/<id>`, `#!script=@shell/<id>`) is
// package scriptref's (ParseRef, ScriptReference), and rows and their LINE:HASH
// citations are package rows'.
//
// # Storage
//
// A Store (NewStore) holds the runtime root as an *os.Root and, per thread,
// opens the thread directory `hpatch-<thread>` and its `scripts/`
// directory as *os.Root values for an operation (retain, resolve, apply,
// expiry, Close); code that reads or writes scripts receives those Roots,
// never path strings. A thread the store owns scripts in keeps them open
// (two descriptors) for its next operation, which then only checks that both names still lead to
// those directories and that they are still safe (two lstats); at most 16
// threads stay open (the least recently used is closed first),
// and a thread unused for one to two seconds is closed, so an idle thread
// holds no descriptor. The worker runtime creates thread directories; the
// store only creates a missing scripts/ (0700) inside a safe thread
// directory. A directory is safe when it is a real directory (not a
// symlink), owned by the current user and not writable by group or others.
// Each reopening or recheck checks that both names still lead to the
// directories the store first opened; if not, it opens them anew with the
// same checks, and expiry and Close leave changed storage alone.
//
// # When a change counts
//
// The router stages a retention (Stage) or an edit (StageEdit) while the
// model's call streams: it is checked then, so the report is ready, and
// later calls of the same response see the staged version (Resolve,
// StageEdit). Settle, given what a later request says of each call, writes
// the changes whose calls ran and discards, with what was staged on top,
// those Codex aborted or that left the conversation. Settle returns the
// changes written (Committed), which the router journals; Restore replays
// such a history after a restart, writing back every script whose hour
// has not passed and owning the ones a kill -9 left behind. Retain and
// Apply write at once (tests and tools).
//
// The model's history is the truth (history.go): Reconcile, given a
// thread's changes whose calls ran in the order the model was told of
// them (what only the journal knows, then what a request shows, each edit
// with the report the model read), makes the scripts on disk those
// versions. Patch application is deterministic, so a replayed edit writes
// what its report said; a script whose version no source gives (its
// retention is gone, an edit no longer writes what it was told, a
// journaled body fails its checksum) is marked unknown, and Resolve and
// StageEdit refuse it with one line rather than use an older version.
// What a thread's scripts are beyond their files, the changes staged
// and the scripts marked unknown, has one owner (versions.go): staging,
// settling and Reconcile change it, and Resolve, StageEdit and Reconcile
// read the current version of a script from it before the file.
//
// Retain writes the complete shell input to a new file (0600) before the
// file has its artifact id and then links it in under that id, so the
// content is complete when the name appears and an existing name is never
// replaced (a link fails on any existing entry): it writes a temporary file
// (.hpatch-tmp-…) through the scripts Root, hard-links it under the id and
// removes the temporary name (createExclusive). Artifacts expire after the TTL (one hour by default,
// counted from retention; edits do not extend it). Close stops every timer
// and removes the files the store wrote, and scripts/ when it created it.
//
// References are scriptref.ParseRef's: "@shell/" followed by an artifact id
// ident.Artifact accepts. They select regular, single-link, UTF-8 files
// only (ReadScript). A rerun (scriptref.ScriptReference) resolves one level:
// a script whose content is itself a rerun is rejected as cyclic or
// chained.
//
// # hpatch grammar
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
// resolver's to decide (package workspace); this package applies the
// operations of one section to given bytes (Section.Apply). Blank lines,
// and spaces and tabs around words, are ignored (other white space is
// text). The `hpatch` tool declares this syntax as a Lark grammar
// (plugins/hpatch.lark) so the model API samples only edits that parse;
// grammar_test.go checks that ParsePatch and that grammar agree on every
// edit the tests and fuzz corpus hold. The grammar takes any one word as
// an id; which words name a script is package ident's rule (through
// scriptref.ParseRef), and a range's order, which a grammar cannot compare,
// is Apply's. Every section is verified and applied in memory before any
// file changes; then all new versions are written to temporary files and
// renamed into place, so a rejected edit changes nothing.
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
//   - A workspace edit given to the store (Store.Apply, Patch.Apply) gets a
//     one-line diagnostic: workspace files are the resolver's.
//
// # Errors
//
// Errors are values without a package or tool prefix (the router adds
// "shell: " or "hpatch: " where the model reads them), wrapped with %w so
// errors.Is and errors.As see the cause: fs.ErrNotExist for a missing
// script or storage, fs.ErrExist for an artifact that already exists,
// ErrClosed, *ident.Error for a bad thread or artifact id,
// *scriptref.RefError for a bad reference. A rejected edit is a *PatchError,
// one line "line N: …", which wraps the store error that caused it. No
// message names the storage: a failed read or write says the script
// (`@shell/<id>`) and the cause (the errno, which errors.Is still sees),
// never the runtime directory's host path or a temporary name.
//
// The report lists, per script, the header `@shell/<id>` and the written
// rows as `LINE:HASH TEXT` (new numbering, the hread row format) with one
// row of context before and after; `(deleted old rows A..B)` marks deleted
// rows where they were, `--` separates rows that are not adjacent, and
// `(empty)` marks a script left without rows.
package retain
