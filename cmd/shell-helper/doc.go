// Command shell-helper is installed as `shell`, the fixed helper every
// worker carrier starts. It validates the thread runtime directory named by
// CODEX_THREAD_ID under HPATCH_RUNTIME_DIR (or the temp dir), refuses
// directories and links not owned by the current user or writable by others,
// and execs the thread's authenticated launcher with its argv unchanged.
// It is tiny on purpose and is never rewritten by the router.
package main
