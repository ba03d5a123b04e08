//go:build linux

package worker

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// shellLang returns the mvdan/sh language for an interpreter selector whose
// basename is bash or sh (case-insensitive, with or without .exe).
func shellLang(selector string) (syntax.LangVariant, string, bool) {
	base := selector
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	base = strings.TrimSuffix(strings.ToLower(base), ".exe")
	switch base {
	case "bash":
		return syntax.LangBash, "bash", true
	case "sh":
		return syntax.LangPOSIX, "sh", true
	}
	return 0, "", false
}

// ignoredShellFlag reports bash invocation flags that mean nothing for a
// non-interactive in-process evaluation; a shebang may carry them.
func ignoredShellFlag(f string) bool {
	switch f {
	case "-l", "--login", "--norc", "--noprofile":
		return true
	}
	return false
}

// runShell parses body as lang and evaluates it in-process. middle are the
// selector's other fields: shell options (-e, -u, -x, -o pipefail, +e, …)
// and, after them or after --, positional parameters.
func (r *run) runShell(lang syntax.LangVariant, name string, middle []string, body string) int {
	file, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(body), name)
	if err != nil {
		r.note(syntaxError(name, err))
		return ExitSyntax
	}
	if lang == syntax.LangPOSIX {
		keepPOSIXBraces(file)
	}
	var params []string
	for _, f := range middle {
		if !ignoredShellFlag(f) {
			params = append(params, f)
		}
	}
	opts := append([]interp.RunnerOption{
		interp.StdIO(r.stdin, r.stdout.writer(), r.stderr.writer()),
		interp.ExecHandlers(bashCompatExec, r.private, r.externalHandler),
	}, bashCompat(lang, file, expand.ListEnviron(os.Environ()...))...)
	if len(params) > 0 {
		opts = append(opts, interp.Params(params...))
	}
	runner, err := interp.New(opts...)
	if err != nil {
		r.note(fmt.Sprintf("%s: %v in the shebang's options; use -e, -u, -x, -o NAME (e.g. -o pipefail), or -- then positional parameters", name, err))
		return ExitUsage
	}
	err = runner.Run(r.ctx, file)
	if err == nil {
		return 0
	}
	if code, ok := interp.IsExitStatus(err); ok {
		return int(code)
	}
	if r.ctx.Err() != nil {
		return 1 // the outcome that cancelled the run decides the status
	}
	fmt.Fprintf(r.stderr.writer(), "%s: %v\n", name, err)
	return 1
}

// syntaxError renders a parse failure as one line with its position.
func syntaxError(name string, err error) string {
	var pe syntax.ParseError
	var le syntax.LangError
	switch {
	case errors.As(err, &pe):
		return fmt.Sprintf("%s syntax error at line %d, column %d: %s; fix the script (nothing was run)", name, pe.Pos.Line(), pe.Pos.Col(), pe.Text)
	case errors.As(err, &le):
		what := le.Feature + " are"
		if !strings.HasSuffix(le.Feature, "s") {
			what = le.Feature + " is"
		}
		return fmt.Sprintf("%s syntax error at line %d, column %d: %s not %s syntax; use #!bash or rewrite it (nothing was run)", name, le.Pos.Line(), le.Pos.Col(), what, map[string]string{"sh": "POSIX sh", "bash": "Bash"}[name])
	}
	return fmt.Sprintf("%s syntax error: %v; fix the script (nothing was run)", name, err)
}
