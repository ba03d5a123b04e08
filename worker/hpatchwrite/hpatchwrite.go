package hpatchwrite

import (
	"context"
	"fmt"
	"io"
	"strings"

	"hpatch-router/hpatch"
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
	if err != nil || plan.Digest() != a.expect {
		if call, ok := notWritten(ctx, a, p); ok {
			return fail(env.Stderr, "this edit was checked on top of hpatch call "+call+" earlier in this response, which did not write (its own output says why); nothing was written; read the files again with hread")
		}
	}
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

// notWritten finds the first earlier call of the response (--after) whose
// write is missing: the files the edit names are as they were before it.
func notWritten(ctx context.Context, a args, p *hpatch.Patch) (string, bool) {
	if len(a.after) == 0 {
		return "", false
	}
	now := workspace.StateDigest(ctx, a.env, p)
	for _, prior := range a.after {
		if prior.State == now {
			return prior.Call, true
		}
	}
	return "", false
}

// args are the command's arguments.
type args struct {
	expect string
	env    workspace.Env
	after  []workspace.Prior // --after CALL:STATE, in response order
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
		case "--after":
			call, state, ok := cutLast(val, ":")
			if !ok {
				return a, fmt.Errorf("--after %q is not CALL:STATE", val)
			}
			a.after = append(a.after, workspace.Prior{Call: call, State: state})
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

// cutLast cuts s at the last sep (a call id may hold one; a state does
// not).
func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// fail prints one line, hpatch: and msg, and returns exit status 1.
func fail(w io.Writer, msg string) int {
	io.WriteString(w, "hpatch: "+strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)+"\n")
	return 1
}
