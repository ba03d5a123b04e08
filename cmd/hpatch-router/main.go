package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/pflag"

	"hpatch-router/worker/inspect"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…").
var version = "dev"

// stdio is the process's standard streams, passed explicitly so every
// subcommand can be driven from tests.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

type subcommand struct {
	name, summary string
	run           func(ctx context.Context, args []string, s stdio) int
}

func subcommands() []subcommand {
	return []subcommand{
		{"serve", "run the proxy between Codex and the model API (default)", runServe},
		{"translate", "show the exec carrier the router would send for a shell input on stdin", runTranslate},
		{"version", "print the build version (also: hpatch-router --version)", runVersion},
		{"doctor", "check the helper, runtime root, tools, Codex config and the running router", runDoctor},
		{"tools", "list the tools the router offers; 'tools check [PATH]' validates tool files", runTools},
		{"codex-config", "print the Codex config.toml snippet for this router (writes nothing)", runCodexConfig},
	}
}

func main() {
	s := stdio{os.Stdin, os.Stdout, os.Stderr}
	// The shell helper execs the launcher with its own argv, so argv[0] is
	// "shell": that is how the router binary knows it is a worker.
	switch filepath.Base(os.Args[0]) {
	case "shell":
		os.Exit(runWorker(os.Args[1:], s))
	case inspect.ChildArg0:
		// The worker's inspect_file starts this binary again to parse a
		// file in a process it can cap and kill (inspect.Outline).
		os.Exit(inspect.ChildMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], s)
	stop()
	os.Exit(code)
}

func dispatch(ctx context.Context, args []string, s stdio) int {
	name := "serve"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		usage(s.out)
		return 0
	}
	if len(args) == 1 && args[0] == "--version" {
		return runVersion(ctx, nil, s)
	}
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	for _, c := range subcommands() {
		if c.name == name {
			return c.run(ctx, args, s)
		}
	}
	fmt.Fprintf(s.err, "hpatch-router: unknown subcommand %q; run 'hpatch-router --help' for the list\n", name)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "hpatch-router %s: gives the Codex model a free-form shell tool.\n\nUsage: hpatch-router [subcommand] [flags]\n\nSubcommands:\n", version)
	for _, c := range subcommands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'hpatch-router <subcommand> --help' for its flags.\n")
}

// parseFlags parses a subcommand's args into fs, which takes no positional
// arguments. done reports that the subcommand must stop with code: 0 after
// --help printed usage and the flag list to stdout, 2 after a bad flag or
// argument, said in one stderr line. pflag's own Usage hook is silenced
// because it would print the help a second time.
func parseFlags(fs *pflag.FlagSet, args []string, usage string, s stdio) (code int, done bool) {
	fs.SetOutput(s.err)
	fs.Usage = func() {}
	name := fs.Name()
	err := fs.Parse(args)
	switch {
	case errors.Is(err, pflag.ErrHelp):
		fmt.Fprintf(s.out, "%s%s", usage, fs.FlagUsages())
		return 0, true
	case err != nil:
		fmt.Fprintf(s.err, "hpatch-router %s: %v; run 'hpatch-router %s --help' for the flags\n", name, err, name)
		return 2, true
	case fs.NArg() > 0:
		fmt.Fprintf(s.err, "hpatch-router %s: unexpected argument %q; run 'hpatch-router %s --help'\n", name, fs.Arg(0), name)
		return 2, true
	}
	return 0, false
}

const versionUsage = "Usage: hpatch-router version\n\n" +
	"Print the build version (the git revision `make install` built, or \"dev\").\n"

func runVersion(_ context.Context, args []string, s stdio) int {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	if code, done := parseFlags(fs, args, versionUsage, s); done {
		return code
	}
	fmt.Fprintf(s.out, "hpatch-router %s\n", version)
	return 0
}
