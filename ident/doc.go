// Package ident owns the one rule for the ids that name runtime entries:
// thread ids (Codex's `thread-id` header and CODEX_THREAD_ID, naming
// <root>/hpatch-<thread>/) and artifact ids (a model call_id, naming a
// retained script <thread dir>/scripts/<id> and written as @shell/<id>).
// The router, the worker, the `shell` helper, retain and shebang all check
// ids here, so an id one of them accepts is usable by all the others: a
// call_id that is retained can be rerun, a thread that gets a journal can
// get a runtime directory. It also names the storage those ids make
// (ThreadDirName, ScriptsDirName), so the store and the runtime share the
// layout without one importing the other.
//
// An id is one filename component: not empty, at most MaxBytes bytes of
// valid UTF-8, not "." or "..", without '/', '\\', NUL, control characters
// (line terminators included) or blanks (any Unicode white space), and it
// does not collide with a name the runtime uses itself:
//
//   - a thread id does not start with SnapshotPrefix, because
//     hpatch-snapshot-<digest> is a router's snapshot directory;
//   - an artifact id is not RuntimeLink and does not start with TempPrefix,
//     the thread directory's launcher link and the store's temporary files.
//
// Blanks and line terminators are excluded because an artifact id must
// survive a `#!script=@shell/<id>` line and a row of `hread` output, and
// every id appears in one-line diagnostics and logs. MaxBytes keeps
// "hpatch-" + id far below NAME_MAX (255).
//
// The package is a leaf that imports only the standard library's unicode
// packages, so the `shell` helper, which imports it, stays small.
package ident
