// Command hpatch-router is the router (serve), the translator CLI
// (translate), the worker entry point (reached through the `shell` helper)
// and version reporting. It maps errors to exit codes; the work itself lives
// in the router, shebang, retain and worker packages.
package main
