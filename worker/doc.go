//go:build linux

// Package worker owns the runtime that executes carriers: the runtime root,
// per-thread directories and their authentication (snapshot digest and
// launcher link), and the worker process that the fixed `shell` helper
// execs into. Bash and sh bodies run in-process with mvdan/sh, configured
// where it differs from GNU Bash (bashcompat.go: the variables Bash sets
// for itself, and Bash's printf through a call handler); other
// interpreters read the exact body from an anonymous descriptor. Private
// commands (hread, hgrep, hsymbol, inspect_file) live in subpackages and run
// in-process inside the shell evaluation, through one exec middleware,
// PrivateCommands, each under its limits from the dispatch table
// (privcmd.Bounds); no parser runs in the worker itself (inspect_file
// outlines in a separate, capped process). The run owns hsymbol's
// language servers (one hsymbol.Sessions per run, shared by its calls) and
// ends them first when the evaluation is over, before it looks for what
// the script left running, so neither report counts them.
//
// # Router side
//
// The root is snapshot.Root's ($HPATCH_RUNTIME_DIR, else
// $XDG_RUNTIME_DIR/hpatch-router, else hpatch-router-<uid> in the temp dir)
// unless serve is told otherwise. NewRuntime(root) creates it 0700 when
// missing and refuses it when it is not a private directory of this user
// (snapshot.CheckRoot), refuses a router executable the helper would
// refuse (snapshot.ExecutableProblem), and creates
// <root>/hpatch-snapshot-<digest>/ (0700): a
// manifest naming the router executable (path, SHA-256, device/inode, size,
// mtime) and the owning process (pid, start time), and `launcher`, a link to
// the executable; <digest> is the first 16 bytes of the manifest's SHA-256.
// PrepareThread(ctx, thread) creates <root>/hpatch-<thread>/ (0700) with
// scripts/ (0700) and `.runtime` → ../hpatch-snapshot-<digest>/launcher.
// It remembers what it verified for a thread; while the thread directory
// and scripts/ keep the identity, owner, mode and change time they had
// then (any entry created, removed or replaced changes the change time),
// it checks only that, with two lstats; it holds the directories of the
// 16 threads it verified last open (until Close), so the lstat of their
// scripts/ does not open and close the directory on the way.
// While it runs, a sweep every twelfth of the retained scripts' lifetime
// removes a thread directory this runtime verified once its scripts/ is
// empty and no PrepareThread came for that lifetime (the router prepares
// a thread on every request of it; WithThreadLifetime).
// A root deleted while the runtime runs (logind removes $XDG_RUNTIME_DIR
// at the last logout without linger; tmp cleaners prune the fallback), or
// replaced, is made again by the next PrepareThread with the startup
// checks, lock, snapshot and launcher (ensureRootLocked: one lstat when it
// is still the root opened); PrepareThreadCreated says when it created a
// thread's directory, so the router restores its scripts.
// With WithRootLock (serve's), NewRuntime first takes the root's lock
// (snapshot.LockRoot), so a second router of the user on the same root
// refuses to start, naming the first one's pid and address; Close
// releases it last.
// Close removes what the runtime created; NewRuntime first reclaims
// snapshots of this user whose router is gone and the thread directories
// that link to them.
//
// # Worker side
//
// The helper decodes `shell [-e] INTERPRETER [FIELDS…] BODY`, checks the
// launcher target on an O_PATH descriptor and execs it as
// `shell INTERPRETER [FIELDS…] /dev/fd/N`, the body in a sealed memfd at
// descriptor N (snapshot.HandOver); no body is ever in the worker's argv.
// Main authenticates (package snapshot's Locate, then /proc/self/exe must
// be the launcher's target with the manifest's file identity, owned by
// this user or root and writable by nobody else), takes the memfd
// (snapshot.TakeBody refuses anything but a sealed memfd), then runs:
//   - bash/sh basenames (any case, .exe allowed): the body is parsed as
//     Bash or POSIX sh and evaluated in-process (for sh, braces in the
//     body's words are quoted first: mvdan/sh would brace-expand them,
//     dash does not); FIELDS are shell options
//     (-e, -u, -x, -o pipefail, …) and positional parameters (-l, --login,
//     --norc, --noprofile are ignored). Private commands run in-process;
//     other commands run from PATH, each leading its own process group
//     unless stdin is a terminal (then they stay in the foreground group).
//   - any other interpreter: INTERPRETER FIELDS… /dev/fd/3, the helper's
//     sealed memfd passed as fd 3 (no copy), stdin untouched.
//   - Python (python, python3, python3.N, pypy3, pypy3.N): INTERPRETER
//     FIELDS… -c LOADER instead, so sys.path[0] is "" (the current
//     directory, as with `python3 -c`) and `import mymodule` finds
//     ./mymodule.py; the loader reads the same fd 3, runs the body as
//     __main__ with sys.argv[0] and __file__ "/dev/fd/3", and tracebacks
//     name the body's lines. FIELDS that change how Python finds the
//     program (-c, -m, -x, -, --, a path) keep the /dev/fd/3 form.
//   - Node runs /dev/fd/3 with --preserve-symlinks-main. Its module
//     resolution is relative to the main module's directory, /dev/fd:
//     require('./x') and packages in ./node_modules are not found; use
//     require(require('path').resolve('x')) or
//     require('module').createRequire(process.cwd() + '/')('x').
//
// Limits: stdout and stderr share DefaultOutputLimit (4 MiB) when they are
// not terminals; beyond it output is discarded while children keep being
// drained, the run is stopped and ends with ExitOverflow. The shell's own
// output (builtins, private commands) is written straight through until a
// child process needs the stream; only then is it a pipe drained by a
// goroutine (a run that starts no process has neither). Stopping sends
// the cancellation signal (or SIGTERM), then SIGCONT (so a stopped process
// acts on it), to every tracked process group — with a terminal, to every
// process below the worker, grandchildren included, except that a SIGINT
// or SIGQUIT is not repeated to the terminal's foreground group, which the
// terminal already signalled once — and SIGKILL after TermGrace (1 s); at the end of every run whatever the script left
// running is terminated the same way and reported in one line. Output
// pipes are drained for at most 2 s after that.
//
// Identity before signals: a command's group is signalled by id only while
// its leader is not reaped (the worker marks a child exited before it
// reaps it, under the lock signalling holds, so the id cannot have been
// reused). After that, and for descendants in a terminal, each process is
// pinned with a pidfd and signalled through it only while it is, pinned,
// a live descendant of the worker (a child subreaper) in the expected
// group. What is left is a race needing two pid reuses within one scan.
//
// Environment: scripts and their commands get the helper's environment
// unchanged. The worker has no private plumbing variables (it finds its
// runtime from CODEX_THREAD_ID and the root rule's variables, which
// Codex's environment already holds) and nothing of the router process (upstream,
// auth, state paths) is passed: the worker is a separate exec of the same
// binary. Like bash, a Bash evaluation exports PWD as its current
// directory.
//
// Job control: there is none, as in `bash -c`. In a PTY, ^Z (SIGTSTP)
// stops the foreground group, which the worker shares with its commands;
// the worker catches it, continues the group at once (and again over
// 400 ms for programs that stop themselves after handling SIGTSTP), and
// says so in one line, so the call never hangs on a job nothing can `fg`.
// Background jobs (`&`, wait, kill %1 inside the script) work as in bash.
//
// Exit statuses: the script's own; 2 parse error or bad options (nothing
// ran); 125 output limit exceeded; 126 refused (runtime not authenticated,
// interpreter not executable); 127 runtime or interpreter not found;
// 128+N stopped by signal N (SIGINT 130, SIGHUP 129, SIGQUIT 131, SIGTERM
// 143; 141 when stdout/stderr is a broken pipe). Every worker diagnostic
// is one stderr line starting "shell: ".
//
// Linux only (build tag linux on every file): the runtime relies on
// /proc, memfd, pidfds, child subreapers and Linux process-group and
// terminal behaviour. Elsewhere the package has no files, so building
// hpatch-router fails with one line: "build constraints exclude all Go
// files in …/worker".
package worker
