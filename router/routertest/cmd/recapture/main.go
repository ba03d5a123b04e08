package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// options are the command-line settings.
type options struct {
	codex, codex0144, codex0147 string
	out                         string
	repo                        string // repository root (for testdata)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "mini-mcp" {
		if err := serveMiniMCP(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mini-mcp:", err)
			os.Exit(1)
		}
		return
	}
	var o options
	fs := flag.NewFlagSet("recapture", flag.ExitOnError)
	fs.StringVar(&o.codex, "codex", defaultCodex(), "Codex CLI 0.169.0 binary")
	fs.StringVar(&o.codex0144, "codex-0144", "", "Codex CLI 0.144.0 binary (flat-0.144.0-* scenarios)")
	fs.StringVar(&o.codex0147, "codex-0147", "", "Codex CLI 0.147.0 binary (namespaced-0.147.0-cli)")
	fs.StringVar(&o.out, "out", "testdata/codex/captures", "output directory (one subdirectory per scenario)")
	fs.StringVar(&o.repo, "repo", ".", "repository root")
	list := fs.Bool("list", false, "list the scenarios and exit")
	_ = fs.Parse(os.Args[1:])

	all := scenarios()
	if *list {
		for _, s := range all {
			fmt.Printf("%-26s %s\n", s.name, s.about)
		}
		return
	}
	want := fs.Args()
	for _, w := range want {
		if !slices.ContainsFunc(all, func(s scenario) bool { return s.name == w }) {
			fmt.Fprintf(os.Stderr, "recapture: unknown scenario %q (see -list)\n", w)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	failed := 0
	for _, s := range all {
		if len(want) > 0 && !slices.Contains(want, s.name) {
			continue
		}
		if err := record(ctx, o, s); err != nil {
			fmt.Fprintf(os.Stderr, "recapture: %s: %v\n", s.name, err)
			failed++
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}

// defaultCodex follows the e2e tests: HPATCH_CODEX_BIN, the CI install,
// then `codex` on PATH.
func defaultCodex() string {
	if v := os.Getenv("HPATCH_CODEX_BIN"); v != "" {
		return v
	}
	const ci = "/opt/hpatch-ci/codex/node_modules/.bin/codex"
	if _, err := os.Stat(ci); err == nil {
		return ci
	}
	return "codex"
}

// cleanEnv drops the caller's Codex/OpenAI settings.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "CODEX_") || strings.HasPrefix(name, "OPENAI_") || name == "MOCK_KEY" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
