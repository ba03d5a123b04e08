//go:build linux

// Package hsymbol owns the private command hsymbol: definitions and
// references of one symbol occurrence, asked of the language's real server
// over LSP and printed as verified rows `"PATH":LINE:HASH TEXT`.
//
//	hsymbol def|refs PATH LINE:HASH SYMBOL [N]
//
// It owns the command line and the checks before any server starts
// (args.go: the cited row must still hash the same; SYMBOL must occur as a
// token on it, exactly once or as the N-th), the server table and workspace
// roots (servers.go: gopls for Go, pyright for Python,
// typescript-language-server for JavaScript and TypeScript), the writable
// directories a server gets (dirs.go: a private TMPDIR, removed with the
// server, and the user's cache when it is writable, else a private one —
// Codex's read-only sandbox lets nothing but /dev/shm be written), a
// minimal LSP client over stdio with Content-Length framing that answers
// the server's requests as they come and lets concurrent calls share one
// connection (lsp.go), and the rows it prints (run.go): `def` expands a
// location to the whole declaration when inspect_file's outline knows it;
// paths are relative to the shell's cwd when inside it. env.Limits bound
// each call (privcmd.Bounds): the document read and sent to the server
// (Input: regular files only, never blocking), the whole call, a server
// start included (Time: the server's process group is killed at the
// deadline, exit 124 with one notice), the rows (Output, never cutting
// one; a cut answer says so on stderr and exits privcmd.ExitTruncated);
// files the answer points into are read within Input and outlined
// for def in inspect_file's bounded outline process.
//
// The servers belong to the worker run (Sessions, sessions.go: the run
// creates them, hands Run to its shell evaluation and closes them when the
// evaluation is over). The calls of a run that ask the same server
// (executable and environment) about the same workspace root share one,
// concurrent calls included; it is replaced when it died (one line says
// so) or when the workspace's sources changed on disk since it started
// (tree.go: the server is not told, and would answer from what it read).
// One server (session.go) leads its own process group; its end kills the
// group and reaps the leader, and privcmd.Start's Pdeathsig ends it should
// the worker die first. No server outlives the run.
//
// Linux only, like the worker that runs it: server processes are reaped
// with waitid(2) and WNOWAIT (build tag linux).
package hsymbol
