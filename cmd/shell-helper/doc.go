// Command shell-helper is installed as `shell`, the fixed helper every
// worker carrier starts:
//
//	shell [-e] INTERPRETER [OPTIONS…] BODY
//
// It derives the runtime root by the rule of snapshot.Root
// ($HPATCH_RUNTIME_DIR, else $XDG_RUNTIME_DIR/hpatch-router, else
// hpatch-router-<uid> in the temp dir), verifies the root and the thread
// runtime directory named by CODEX_THREAD_ID (owned by the current user,
// writable by nobody else), opens the launcher target the snapshot
// manifest registers and checks the opened file (owner you or root — inside
// Codex's sandbox, the overflow uid of a file the manifest recorded as
// root's, unchanged since — not writable by group/others, the registered
// device, inode, size and mtime),
// decodes the body (-e: the escape form of package shebang/oneline, which
// keeps the carrier on one line every POSIX shell reads alike) into a
// sealed memfd, and execs exactly the checked file through
// /proc/self/fd/M as
//
//	shell INTERPRETER [OPTIONS…] /dev/fd/N        (N: the memfd)
//
// with the environment unchanged, so the router binary starts as the
// worker and no process after the helper carries the body in its command
// line. It is tiny on purpose and is never rewritten by the router. Off
// Linux it builds to a helper that refuses with snapshot.ErrNeedsLinux, like
// the worker it would start.
//
// Every refusal is one line on stderr starting "shell: " that says what is
// wrong and what to do, with the exit status a shell would use:
//
//	2    not `shell [-e] INTERPRETER [OPTIONS…] BODY`, or a malformed
//	     escaped body
//	126  the runtime exists but cannot be trusted or run (wrong owner,
//	     writable by group/others, not a registered launcher, bad
//	     manifest, a launcher target replaced since the router started)
//	127  the runtime or what it names does not exist (relative
//	     HPATCH_RUNTIME_DIR, no root or thread directory, no .runtime
//	     link, dangling link, launcher target gone)
package main
