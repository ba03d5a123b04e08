//go:build linux

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"hpatch-router/plugins/registry"
	"hpatch-router/shebang"
	"hpatch-router/worker/snapshot"
)

const toolsUsage = `Usage: hpatch-router tools [--tools-dir DIR]
       hpatch-router tools check [--tools-dir DIR] [PATH]

tools lists the tools a router started now would offer the model: the
built-in shell and hpatch, then every tool declared in the tools directory
(name, file:line, input, run, format). With a problem in the directory it
prints the problems instead and exits 1: a running router keeps the set it
had.

tools check validates PATH (a tools directory or one .toml file; default:
the tools directory) without a router: every problem on its own line,
FILE:LINE: what; how to fix. Exit 0 when there is none, 1 otherwise.

Flags:
`

// defaultToolsDir is $XDG_CONFIG_HOME/hpatch-router/tools, else
// ~/.config/hpatch-router/tools.
func defaultToolsDir(e serveEnv) string {
	if d := e.getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "hpatch-router", "tools")
	}
	if h, err := e.homeDir(); err == nil && h != "" {
		return filepath.Join(h, ".config", "hpatch-router", "tools")
	}
	return ""
}

// toolsLoadOptions gives the registry the runtime root's ownership rule.
func toolsLoadOptions(uid int) registry.LoadOptions {
	return registry.LoadOptions{Owned: func(what, path, kind string) error {
		return snapshot.CheckOwned(what, path, kind, uid)
	}}
}

// toolsDirFlag adds --tools-dir to fs.
func toolsDirFlag(fs *pflag.FlagSet, e serveEnv) *string {
	return fs.String("tools-dir", defaultToolsDir(e), "directory of tool files (*.toml) whose tools the router offers beside shell and hpatch: $XDG_CONFIG_HOME/hpatch-router/tools, else ~/.config/hpatch-router/tools; yours and not writable by group or others; empty: none")
}

func runTools(_ context.Context, args []string, s stdio) int {
	return toolsCommand(args, osServeEnv(), s)
}

func toolsCommand(args []string, e serveEnv, s stdio) int {
	check := len(args) > 0 && args[0] == "check"
	if check {
		args = args[1:]
	}
	fs := pflag.NewFlagSet("tools", pflag.ContinueOnError)
	dir := toolsDirFlag(fs, e)
	fs.SetOutput(s.err)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			fmt.Fprintf(s.out, "%s%s", toolsUsage, fs.FlagUsages())
			return 0
		}
		fmt.Fprintf(s.err, "hpatch-router tools: %v; run 'hpatch-router tools --help'\n", err)
		return 2
	}
	path := *dir
	switch {
	case fs.NArg() > 1 || fs.NArg() == 1 && !check:
		fmt.Fprintf(s.err, "hpatch-router tools: unexpected argument %q; run 'hpatch-router tools --help'\n", fs.Arg(fs.NArg()-1))
		return 2
	case fs.NArg() == 1:
		path = fs.Arg(0)
	}
	if path == "" {
		fmt.Fprintln(s.err, "hpatch-router tools: no tools directory (no XDG_CONFIG_HOME or home); pass --tools-dir or a PATH")
		return 2
	}
	opts := toolsLoadOptions(e.uid)
	var set *registry.Set
	var probs []registry.Problem
	if check {
		set, probs = registry.Check(path, opts)
	} else {
		set, probs = registry.Load(path, opts)
	}
	for _, p := range probs {
		fmt.Fprintln(s.out, p.String())
	}
	if len(probs) > 0 {
		fmt.Fprintf(s.err, "hpatch-router tools: %d problem(s) in %s; a running router keeps its previous tools until they are fixed\n", len(probs), path)
		return 1
	}
	if check {
		fmt.Fprintf(s.out, "%s: %d tool(s), no problems\n", path, set.Len())
		return 0
	}
	listTools(set, s)
	return 0
}

// translateTool is translate --tool: the input as a call of the declared
// tool name, never retained.
func translateTool(name, dir, input string, opts shebang.Options, s stdio) int {
	if dir == "" {
		dir = defaultToolsDir(osServeEnv())
	}
	set, probs := registry.Load(dir, toolsLoadOptions(osServeEnv().uid))
	for _, p := range probs {
		fmt.Fprintln(s.err, p.String())
	}
	if len(probs) > 0 {
		fmt.Fprintf(s.err, "hpatch-router translate: %d problem(s) in %s; fix them (hpatch-router tools check)\n", len(probs), dir)
		return 2
	}
	t := set.Lookup(name)
	if t == nil {
		fmt.Fprintf(s.err, "hpatch-router translate: no tool %q in %s; hpatch-router tools lists them\n", name, dir)
		return 2
	}
	plan, err := shebang.TranslateTool(t.Spec, input, opts)
	if err != nil {
		fmt.Fprintln(s.err, name+": "+err.Error())
		return 1
	}
	return writeTranslation(plan, shebang.Retention{}, s)
}

// listTools prints the built-ins and set as a table.
func listTools(set *registry.Set, s stdio) {
	w := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tFILE\tINPUT\tRUN\tFORMAT")
	fmt.Fprintln(w, "shell\t(built-in)\tscript\t#! line, else bash\ttext")
	fmt.Fprintln(w, "hpatch\t(built-in)\tedit\t(router)\tlark grammar")
	for _, t := range set.Tools {
		fmt.Fprintf(w, "%s\t%s:%d\t%s\t%s\t%s\n", t.Name, t.File, t.Line, t.Input, strings.Join(quoteFields(t.Spec.Run), " "), t.Format.Summary())
	}
	w.Flush()
}

// quoteFields shows fields with blanks quoted, so a listing reads as argv.
func quoteFields(f []string) []string {
	out := make([]string, len(f))
	for i, v := range f {
		if v == "" || strings.ContainsAny(v, " \t\"'") {
			v = fmt.Sprintf("%q", v)
		}
		out[i] = v
	}
	return out
}
