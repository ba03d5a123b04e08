//go:build linux

package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// externalHandler is the last exec middleware: every command that is not a
// function, builtin or private command runs from PATH as a tracked child
// (its own process group without a terminal) with the evaluation's
// streams, directory and exported environment.
func (r *run) externalHandler(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) error {
		hc := interp.HandlerCtx(ctx)
		path, err := interp.LookPathDir(hc.Dir, hc.Env, args[0])
		if err != nil {
			fmt.Fprintf(hc.Stderr, "%s: command not found\n", args[0])
			return interp.ExitStatus(127)
		}
		stdout, err := childOutput(hc.Stdout)
		var stderr io.Writer
		if err == nil {
			stderr, err = childOutput(hc.Stderr)
		}
		if err != nil {
			fmt.Fprintf(hc.Stderr, "%s: cannot start: %v\n", args[0], err)
			return interp.ExitStatus(126)
		}
		cmd := &exec.Cmd{Path: path, Args: args, Env: environ(hc.Env), Dir: hc.Dir,
			Stdout: stdout, Stderr: stderr}
		if hc.Stdin != nil {
			cmd.Stdin = hc.Stdin
		}
		err = r.runChild(ctx, cmd, hc.Stderr)
		if errors.Is(err, syscall.ENOEXEC) {
			// Like bash: a file the kernel cannot execute (no #! line) runs
			// as a Bash script, here through the same handlers.
			return r.runScriptFile(ctx, hc, path, args)
		}
		return err
	}
}

// childOutput is what a child process writes an evaluation stream to: a
// run's stream becomes its descriptor (the pipe, made now if the shell
// wrote straight through so far); redirections and pipelines already are
// files.
func childOutput(w io.Writer) (io.Writer, error) {
	if s, ok := w.(*stream); ok {
		return s.file()
	}
	return w, nil
}

// runScriptFile evaluates the file at path as a Bash script with args[1:]
// as positional parameters, in a new evaluation that inherits only the
// exported environment, like a child shell.
func (r *run) runScriptFile(ctx context.Context, hc interp.HandlerContext, path string, args []string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "%s: %v\n", args[0], err)
		return interp.ExitStatus(126)
	}
	if line, _, _ := bytes.Cut(data, []byte("\n")); bytes.IndexByte(line, 0) >= 0 {
		fmt.Fprintf(hc.Stderr, "%s: cannot execute binary file\n", args[0])
		return interp.ExitStatus(126)
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), args[0])
	if err != nil {
		fmt.Fprintf(hc.Stderr, "%s\n", syntaxError(args[0], err))
		return interp.ExitStatus(2)
	}
	runner, err := interp.New(
		append([]interp.RunnerOption{
			interp.StdIO(hc.Stdin, hc.Stdout, hc.Stderr),
			interp.Dir(hc.Dir),
			interp.ExecHandlers(bashCompatExec, r.private, r.externalHandler),
			interp.Params(append([]string{"--"}, args[1:]...)...),
		}, bashCompat(syntax.LangBash, file, expand.ListEnviron(environ(hc.Env)...))...)...,
	)
	if err != nil {
		return err
	}
	return runner.Run(ctx, file)
}

// runChild starts cmd as a tracked child and waits for it; the status is
// its exit code, or 128+signal.
func (r *run) runChild(ctx context.Context, cmd *exec.Cmd, stderr io.Writer) error {
	c, err := r.procs.start(cmd)
	if err != nil {
		return startError(cmd, err, stderr)
	}
	// A cancelled evaluation (signal, overflow) is handled by run.finish,
	// which signals every tracked group; nothing else to watch here.
	err = r.procs.wait(c, cmd)
	return exitStatus(ctx, err)
}

func startError(cmd *exec.Cmd, err error, stderr io.Writer) error {
	name := cmd.Args[0]
	switch {
	case errors.Is(err, errStopping):
		return interp.ExitStatus(130)
	case errors.Is(err, syscall.ENOEXEC):
		return syscall.ENOEXEC // the caller runs it as a script
	case errors.Is(err, os.ErrPermission):
		fmt.Fprintf(stderr, "%s: permission denied\n", name)
	case errors.Is(err, os.ErrNotExist):
		fmt.Fprintf(stderr, "%s: No such file or directory\n", name)
		return interp.ExitStatus(127)
	default:
		fmt.Fprintf(stderr, "%s: cannot start: %v\n", name, err)
	}
	return interp.ExitStatus(126)
}

func exitStatus(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return interp.ExitStatus(uint8(128 + int(ws.Signal())))
		}
		return interp.ExitStatus(uint8(ee.ExitCode()))
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// environ is the exported environment of an evaluation as KEY=VALUE. A
// name can appear more than once (a global overlaid by a local or an
// unset); the last one wins. PWD counts as exported, as bash always
// exports it (mvdan/sh sets it to the evaluation's directory but not as
// exported): commands see the directory they run in, like under bash, and
// the inherited PWD is not lost.
func environ(env expand.Environ) []string {
	list := make([]string, 0, 64)
	at := map[string]int{}
	for name, vr := range env.Each {
		i, seen := at[name]
		if !vr.IsSet() || !(vr.Exported || name == "PWD") || vr.Kind != expand.String {
			if seen {
				list[i] = ""
			}
			continue
		}
		kv := name + "=" + vr.String()
		if seen {
			list[i] = kv
			continue
		}
		at[name] = len(list)
		list = append(list, kv)
	}
	out := list[:0]
	for _, kv := range list {
		if kv != "" {
			out = append(out, kv)
		}
	}
	return out
}
