//go:build linux

package worker

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Bash compatibility (issue 35 item 3): what mvdan/sh does differently from
// GNU Bash and configuration can make agree, without forking it. The
// variables Bash sets for itself (bashEnviron), and printf through
// bashPrintf (bashCompatCall, bashCompatExec). Differences that cannot be
// configured away are named to the model by package shebang when it
// translates the script.

// bashRelease is what BASH_VERSION and BASH_VERSINFO claim: the Bash
// release whose semantics mvdan.cc/sh/v3 follows, and the evaluator.
const (
	bashMajor, bashMinor = "5", "2"
	bashRelease          = "mvdan.cc/sh/v3"
)

// bashEnviron adds to env the shell variables GNU Bash sets for itself and
// mvdan/sh leaves unset: BASH_VERSION, BASH_VERSINFO, OSTYPE, MACHTYPE,
// HOSTTYPE, HOSTNAME, BASHPID, EPOCHSECONDS and EPOCHREALTIME (read anew
// on every use). They are not exported, as in Bash; a variable the
// environment already has keeps its value.
func bashEnviron(env expand.Environ) expand.Environ {
	host, _ := os.Hostname()
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	machine := arch + "-pc-linux-gnu"
	str := func(s string) expand.Variable { return expand.Variable{Set: true, Kind: expand.String, Str: s} }
	return compatEnviron{parent: env, vars: map[string]expand.Variable{
		"BASH_VERSION":  str(bashMajor + "." + bashMinor + ".0(1)-" + bashRelease),
		"BASH_VERSINFO": {Set: true, ReadOnly: true, Kind: expand.Indexed, List: []string{bashMajor, bashMinor, "0", "1", bashRelease, machine}},
		"OSTYPE":        str("linux-gnu"),
		"MACHTYPE":      str(machine),
		"HOSTTYPE":      str(arch),
		"HOSTNAME":      str(host),
		"BASHPID":       str(strconv.Itoa(os.Getpid())),
	}}
}

type compatEnviron struct {
	parent expand.Environ
	vars   map[string]expand.Variable
}

func (e compatEnviron) Get(name string) expand.Variable {
	if v := e.parent.Get(name); v.Declared() {
		return v
	}
	now := time.Now()
	switch name {
	case "EPOCHSECONDS":
		return expand.Variable{Set: true, Kind: expand.String, Str: strconv.FormatInt(now.Unix(), 10)}
	case "EPOCHREALTIME":
		return expand.Variable{Set: true, Kind: expand.String, Str: fmt.Sprintf("%d.%06d", now.Unix(), now.Nanosecond()/1000)}
	}
	return e.vars[name]
}

func (e compatEnviron) Each(f func(name string, vr expand.Variable) bool) {
	seen := true
	e.parent.Each(func(name string, vr expand.Variable) bool {
		seen = f(name, vr)
		return seen
	})
	for name, vr := range e.vars {
		if !seen {
			return
		}
		if !e.parent.Get(name).Declared() {
			seen = f(name, vr)
		}
	}
}

// printfCall is the name bashCompatCall gives a printf call so that it
// reaches bashCompatExec instead of mvdan/sh's builtin; no shell word can
// hold a NUL, so no command of the script can be named so.
const printfCall = "\x00printf"

// bashCompatCall routes printf to bashPrintf, except `printf -v VAR`,
// which must set a variable of the evaluation (the model is told to write
// VAR=$(printf …) instead).
func bashCompatCall(_ context.Context, args []string) ([]string, error) {
	if len(args) > 0 && args[0] == "printf" && !(len(args) > 1 && args[1] == "-v") {
		args = append([]string{printfCall}, args[1:]...)
	}
	return args, nil
}

// bashCompatExec runs what bashCompatCall routed here.
func bashCompatExec(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) error {
		if args[0] != printfCall {
			return next(ctx, args)
		}
		hc := interp.HandlerCtx(ctx)
		if code := bashPrintf(hc.Stdout, hc.Stderr, args[1:]); code != 0 {
			return interp.ExitStatus(code)
		}
		return nil
	}
}

// bashCompat is the runner configuration for Bash compatibility of file;
// env is the evaluation's environment. An sh evaluation gets printf (a
// superset of dash's) but not Bash's own variables, whose presence tells a
// script it runs under Bash. A script that defines its own printf function
// keeps mvdan/sh's dispatch: the call handler renames a call before the
// function lookup, which would skip the script's function.
func bashCompat(lang syntax.LangVariant, file *syntax.File, env expand.Environ) []interp.RunnerOption {
	var opts []interp.RunnerOption
	if lang == syntax.LangBash {
		env = bashEnviron(env)
	}
	opts = append(opts, interp.Env(env))
	if !definesFunc(file, "printf") {
		opts = append(opts, interp.CallHandler(bashCompatCall))
	}
	return opts
}

// definesFunc reports a function definition of name anywhere in file.
func definesFunc(file *syntax.File, name string) bool {
	found := false
	syntax.Walk(file, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil && fd.Name.Value == name {
			found = true
		}
		return !found
	})
	return found
}
