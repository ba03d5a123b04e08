//go:build linux

package worker

import (
	"context"
	"io"
	"os"
	"strings"

	"mvdan.cc/sh/v3/interp"

	"hpatch-router/privname"
	"hpatch-router/worker/hgrep"
	"hpatch-router/worker/hpatchwrite"
	"hpatch-router/worker/hread"
	"hpatch-router/worker/hsymbol"
	"hpatch-router/worker/inspect"
	"hpatch-router/worker/privcmd"
)

// privateCommand is one entry of the dispatch table: the command and the
// limits it runs under.
type privateCommand struct {
	run    privcmd.Func
	limits privcmd.Limits
}

// privateCommands is the dispatch table of the private commands the shell
// evaluation runs in-process, each with its limits (privcmd.Bounds);
// hsymbol's calls share symbols' language servers. Nothing by these names
// exists on disk.
func privateCommands(symbols *hsymbol.Sessions) map[string]privateCommand {
	return map[string]privateCommand{
		privname.Hread:       {hread.Run, privcmd.Bounds(privname.Hread)},
		privname.Hgrep:       {hgrep.Run, privcmd.Bounds(privname.Hgrep)},
		privname.Hsymbol:     {symbols.Run, privcmd.Bounds(privname.Hsymbol)},
		privname.InspectFile: {inspect.Run, privcmd.Bounds(privname.InspectFile)},
		privname.HpatchWrite: {hpatchwrite.Run, privcmd.Bounds(privname.HpatchWrite)},
	}
}

// PrivateCommands is the worker's first exec middleware for mvdan/sh's
// interp.ExecHandlers: hread, hgrep, hsymbol and inspect_file run
// in-process, each under its limits, with the evaluation's streams (after
// redirections and pipes),
// directory and exported environment; any other command goes to next.
// scripts is the thread's retained-script directory for @shell/<id>
// references, or nil; symbols are the language-server sessions of the
// run, which the caller closes when the evaluation is over.
func PrivateCommands(scripts *os.Root, symbols *hsymbol.Sessions) func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	cmds := privateCommands(symbols)
	return func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
		return func(ctx context.Context, args []string) error {
			c, ok := cmds[args[0]]
			if !ok {
				return next(ctx, args)
			}
			hc := interp.HandlerCtx(ctx)
			var in io.Reader = strings.NewReader("")
			if hc.Stdin != nil {
				in = hc.Stdin
			}
			env := &privcmd.Env{Stdin: in, Stdout: hc.Stdout, Stderr: hc.Stderr,
				Dir: hc.Dir, Environ: environ(hc.Env), Scripts: scripts, Limits: c.limits}
			if code := c.run(ctx, env, args); code != 0 {
				return interp.ExitStatus(uint8(code))
			}
			return nil
		}
	}
}
