package snapshot

// Protocol numbers the contract between the `shell` helper and the
// router that registered the launcher: the helper's argv (`shell [-e]
// INTERPRETER [OPTIONS…] BODY` and package shebang/oneline's escape
// form), the runtime layout and manifest it verifies, and the worker argv
// and memfd handoff it execs. A helper of another protocol cannot run the
// router's carriers. Raise it with any change to one of those; a helper
// and a router of one commit always agree. `shell --version` prints it,
// and the router's startup check and `doctor` compare it (package
// internal/buildstamp).
const Protocol = 1
