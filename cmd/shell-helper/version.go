package main

import (
	"os"

	"hpatch-router/internal/buildstamp"
	"hpatch-router/worker/snapshot"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"), as
// the router's is.
var version = "dev"

const helpText = "shell: the fixed helper of hpatch-router. Codex runs it for the model's shell calls as\n" +
	"  shell [-e] INTERPRETER [OPTIONS…] BODY\n" +
	"(the router writes these commands; it is not meant to be typed). It checks the runtime\n" +
	"of the thread in CODEX_THREAD_ID and execs the router binary registered there as the\n" +
	"worker. `shell --version` prints its commit and protocol; `hpatch-router doctor` checks it.\n"

// infoRequest answers `shell --help` and `shell --version`, only when the
// flag is the sole argument: every command the router writes has at least
// an interpreter and a body, so a one-argument command was never a shell
// call (it was a usage error, exit 2), and a carrier whose interpreter
// options or body hold "--help" keeps its meaning.
func infoRequest(args []string) (int, bool) {
	if len(args) != 1 {
		return 0, false
	}
	switch args[0] {
	case "--version":
		os.Stdout.WriteString(buildstamp.Of(version, snapshot.Protocol).Line() + "\n")
	case "--help":
		os.Stdout.WriteString(helpText)
	default:
		return 0, false
	}
	return 0, true
}
