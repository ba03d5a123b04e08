// Command hpatch-router is the router (serve), the translator CLI
// (translate), the worker entry point (reached through the `shell` helper,
// argv[0] "shell"), inspect_file's parser process (started by the worker
// with argv[0] "hpatch-outline", see inspect.Outline) and version
// reporting. It maps errors to exit codes; the work itself lives
// in the router, shebang, retain and worker packages.
//
// serve, doctor and the worker entry are Linux-only (build tag linux), like
// the worker; elsewhere they stop with snapshot.ErrNeedsLinux, one line, and
// translate, codex-config and version work (offlinux.go). The router,
// shebang, retain and ident packages build everywhere; CI cross-compiles
// darwin to keep them so.
package main
