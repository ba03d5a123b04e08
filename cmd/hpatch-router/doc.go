// Command hpatch-router is the router (serve), the translator CLI
// (translate), the worker entry point (reached through the `shell` helper,
// argv[0] "shell"), inspect_file's parser process (started by the worker
// with argv[0] "hpatch-outline", see inspect.Outline) and version
// reporting. It maps errors to exit codes; the work itself lives
// in the router, shebang, retain and worker packages.
//
// It builds on Linux only, because it holds the worker entry and the
// worker is Linux-only; on other systems `go build` stops with one line
// saying that build constraints exclude all Go files in worker. The router,
// shebang, retain and ident packages build everywhere.
package main
