package hpatchwrite

import (
	"context"
	"fmt"
	"io"
	"strings"

	"hpatch-router/retain"
	"hpatch-router/worker/privcmd"
	"hpatch-router/workspace"
)

// Run is the privcmd.Func of hpatch-write; env.Limits bound its time.
func Run(ctx context.Context, env *privcmd.Env, args []string) int {
	ctx, cancel := privcmd.WithTimeLimit(ctx, env.Limits)
	defer cancel()
	a, err := parseArgs(args[1:])
	if err != nil {
		return fail(env.Stderr, err.Error()+"; this command is written by the router's hpatch carrier: edit files with the hpatch tool")
	}
	p, err := retain.ParsePatch(a.edit)
	if err != nil {
		return fail(env.Stderr, err.Error())
	}
	plan, err := workspace.Resolve(ctx, a.env, p)
	switch {
	case err != nil:
		return fail(env.Stderr, err.Error()+" (found when writing; the file changed after the edit was checked)")
	case plan.Digest() != a.expect:
		return fail(env.Stderr, "the files of this edit changed after the router checked it; nothing was written; read them again with hread")
	}
	if err := plan.Write(ctx); err != nil {
		if privcmd.TimedOut(ctx) {
			return fail(env.Stderr, fmt.Sprintf("stopped after %v: %v", env.Limits.Time, err))
		}
		return fail(env.Stderr, err.Error())
	}
	if len(plan.Report) > env.Limits.Output {
		io.WriteString(env.Stdout, fmt.Sprintf("(the edit was written; its report of %d bytes is over the %s output limit: read the files again with hread)\n", len(plan.Report), privcmd.Size(int64(env.Limits.Output))))
		return privcmd.ExitTruncated
	}
	io.WriteString(env.Stdout, plan.Report)
	return 0
}

// args are the command's arguments.
type args struct {
	expect string
	env    workspace.Env
	edit   string
}

func parseArgs(list []string) (args, error) {
	var a args
	for len(list) > 1 {
		flag, val := list[0], list[1]
		switch flag {
		case "--expect":
			a.expect = val
		case "--cwd":
			a.env.Cwd = val
		case "--root":
			a.env.Roots = append(a.env.Roots, val)
		default:
			return a, fmt.Errorf("unknown option %q", flag)
		}
		list = list[2:]
	}
	switch {
	case len(list) != 1:
		return a, fmt.Errorf("want --expect DIGEST --cwd DIR --root DIR… and the edit as the last argument")
	case a.expect == "" || a.env.Cwd == "" || len(a.env.Roots) == 0:
		return a, fmt.Errorf("--expect, --cwd and --root are required")
	case strings.HasPrefix(list[0], "--"):
		return a, fmt.Errorf("option %q has no value", list[0])
	}
	a.edit = list[0]
	return a, nil
}

// fail prints one line, hpatch: and msg, and returns exit status 1.
func fail(w io.Writer, msg string) int {
	io.WriteString(w, "hpatch: "+strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)+"\n")
	return 1
}
