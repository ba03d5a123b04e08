//go:build linux

// Command shell-helper is installed as `shell`, the fixed helper every
// worker carrier starts. It validates the thread runtime directory named by
// CODEX_THREAD_ID under HPATCH_RUNTIME_DIR (absolute; otherwise the temp
// dir), refuses directories and links not owned by the current user or
// writable by others, and execs the thread's authenticated launcher (the
// hpatch-router executable) with its argv and environment unchanged, so the
// router binary starts as the worker (argv[0] stays "shell").
// It is tiny on purpose and is never rewritten by the router. It is
// Linux-only (build tag linux), like the worker it starts.
//
// Every refusal is one line on stderr starting "shell: " that says what is
// wrong and what to do, with the exit status a shell would use:
//
//	126  the runtime exists but cannot be trusted or run (wrong owner,
//	     writable by group/others, not a registered launcher, bad manifest)
//	127  the runtime or what it names does not exist (no thread directory,
//	     no .runtime link, dangling link, launcher target gone)
package main
