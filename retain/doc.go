// Package retain owns retained `@shell/<id>` scripts: the per-thread
// scripts/ store confined with os.Root, expiry and shutdown cleanup,
// reference resolution, and hpatch edits (package hpatch's language)
// applied to retained scripts.
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
// # hpatch edits
//
// The edit language, its parser and the pure application of a section to
// bytes are package hpatch's. This package adds what only the store knows
// (patch.go): ParsePatch first refuses an edit written for another tool
// (an apply_patch envelope, a unified diff, JSON or a Markdown fence,
// recognised by shebang.ForeignSyntax) with a line naming the grammar
// hpatch expects; applyPatch gives each script section its current
// content as the baseline, each edited script at most MaxScriptBytes, and
// refuses a section whose script the thread does not hold (fs.ErrNotExist)
// and a workspace edit (Store.Apply gets a one-line diagnostic: workspace
// files are the resolver's). Every section is verified and applied in
// memory before any file changes; then all new versions are written to
// temporary files and renamed into place, so a rejected edit changes
// nothing.
//
// # Errors
//
// Errors are values without a package or tool prefix (the router adds
// "shell: " or "hpatch: " where the model reads them), wrapped with %w so
// errors.Is and errors.As see the cause: fs.ErrNotExist for a missing
// script or storage, fs.ErrExist for an artifact that already exists,
// ErrClosed, *ident.Error for a bad thread or artifact id,
// *scriptref.RefError for a bad reference. A rejected edit is an *hpatch.Error,
// one line "line N: …", which wraps the store error that caused it. No
// message names the storage: a failed read or write says the script
// (`@shell/<id>`) and the cause (the errno, which errors.Is still sees),
// never the runtime directory's host path or a temporary name.
package retain
