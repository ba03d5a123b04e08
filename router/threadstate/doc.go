// Package threadstate owns what the router remembers of each thread
// (a Codex conversation, named by its thread id) across requests and
// restarts: the replay entries that map each carrier the router sent back
// to the model's original call item, the changes to retained scripts
// that were written because their calls ran (retain.Committed), what a
// request already found of a call (written, quiet, or echoed with no
// entry), and the journals that keep all of it on disk.
//
// The API is small: Open and Close; Put and Sent (a carrier sent for a
// call, and the carrier to send again for the same call); View, a locked
// view of one thread for a request's walk over its calls (Get, Match,
// NoteLost, Seen, MarkQuiet, Commits); Commit, History, MarkKnown,
// MarkQuiet and Knows for the written changes; RecentThreads for the
// threads a restarted router prepares. The router calls it; it imports
// nothing of the router (ident for the thread id rule, retain for the
// shape of a written change).
//
// The journal's contract (journal.go, commits.go): with a state
// directory, each thread has one append-only file <thread>.replay.jsonl
// (0600, in a 0700 directory opened as an os.Root), one JSON line per
// entry or written change, in the order they happened. A line is written
// with one write() before Put or Commit returns, so a crash of the router
// (kill -9 included) loses nothing; fsyncs follow within about a second
// (maintain.go). Reading a journal never trusts it: every line that fails
// its check (not a JSON object, no call_id, no carrier digest, no item, a
// commit without its time, a retained body that does not match its
// checksum, ...) is skipped with a WARN naming the thread, the line and
// the reason, and the journal is rewritten without it; a last line
// without its newline is a write the router did not finish, said at INFO.
// A journal that cannot be written is retried, then given up with one
// ERROR line, and that thread's state stays in memory only. Journals are
// bounded per thread (entries and bytes, with compaction) and in all (age
// and total bytes); the cache of loaded threads is bounded too (Limits).
package threadstate
