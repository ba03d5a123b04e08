//go:build linux

package worker

import (
	"context"
	"io"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"hpatch-router/worker/hgrep"
	"hpatch-router/worker/hread"
	"hpatch-router/worker/hsymbol"
	"hpatch-router/worker/inspect"
	"hpatch-router/worker/privcmd"
)

// privateCommands is the dispatch table of the private commands the shell
// evaluation runs in-process. Nothing by these names exists on disk.
func privateCommands() map[string]privcmd.Func {
	return map[string]privcmd.Func{
		"hread":        hread.Run,
		"hgrep":        hgrep.Run,
		"hsymbol":      hsymbol.Run,
		"inspect_file": inspect.Run,
	}
}

// privateHandler is the first exec middleware: a private command runs
// in-process with the evaluation's streams (after redirections and pipes),
// directory and exported environment; anything else goes to next.
func (r *run) privateHandler(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) error {
		f, ok := r.private[args[0]]
		if !ok {
			return next(ctx, args)
		}
		hc := interp.HandlerCtx(ctx)
		var in io.Reader = strings.NewReader("")
		if hc.Stdin != nil {
			in = hc.Stdin
		}
		env := &privcmd.Env{Stdin: in, Stdout: hc.Stdout, Stderr: hc.Stderr,
			Dir: hc.Dir, Environ: environ(hc.Env), Scripts: r.scripts}
		if code := f(ctx, env, args); code != 0 {
			return interp.ExitStatus(uint8(code))
		}
		return nil
	}
}
