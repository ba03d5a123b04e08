package shebang

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash differences (issue 35 item 3): bash and sh bodies run in-process in
// mvdan/sh, which differs from GNU Bash in a few idioms models write. The
// worker makes what configuration can agree (BASH_VERSION and the other
// variables Bash sets, printf); each remaining difference found in a body
// gets one note per kind that says what to write instead. The corpus that
// proves both sides runs each idiom under GNU Bash and the worker
// (worker/bashdiff_test.go).

// bashDiffKinds lists the kinds of difference a parsed body uses, in
// first-seen order.
func bashDiffKinds(f *syntax.File) []string {
	var kinds []string
	add := func(k string) {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			switch {
			case n.Param == nil:
			case n.Param.Value == "PIPESTATUS" || n.Param.Value == "FUNCNAME":
				add(n.Param.Value)
			case n.Param.Value == "!":
				add("$!")
			case (n.Param.Value == "@" || n.Param.Value == "*") && n.Exp != nil:
				add("${@:-}")
			case n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && n.Exp.Word.Lit() == "Q":
				add("${v@Q}")
			}
		case *syntax.CoprocClause:
			add("coproc")
		case *syntax.DeclClause:
			if declOptions(n.Args) {
				add("declare -ilu")
			}
		case *syntax.Redirect:
			if n.N != nil && (len(n.N.Value) > 1 || n.N.Value > "2") {
				add("fd")
			}
			if (n.Op == syntax.DplOut || n.Op == syntax.DplIn) && n.Word != nil {
				if w := n.Word.Lit(); w != "" && w != "-" && w > "2" && w[0] >= '0' && w[0] <= '9' {
					add("fd")
				}
			}
		case *syntax.CallExpr:
			words := make([]string, len(n.Args))
			for i, w := range n.Args {
				words[i] = quotedLiteral(w)
			}
			if k := callDiffKind(words); k != "" {
				add(k)
			}
			if len(words) > 0 && words[0] == "wait" {
				return false // wait "$!" is what $! is for
			}
		}
		return true
	})
	return kinds
}

// declOptions reports declare/typeset/local options the evaluator lacks:
// -i, -l, -u, -t and -F.
func declOptions(args []*syntax.Assign) bool {
	for _, a := range args {
		if a.Naked && a.Name == nil && a.Value != nil {
			if w := a.Value.Lit(); len(w) > 1 && w[0] == '-' && strings.ContainsAny(w[1:], "iluFt") {
				return true
			}
		}
	}
	return false
}

// callDiffKind is the kind of difference a simple command runs into.
func callDiffKind(words []string) string {
	if len(words) == 0 {
		return ""
	}
	opts := func(letters string) bool {
		for _, w := range words[1:] {
			if w == "--" || len(w) < 2 || w[0] != '-' {
				return false
			}
			if strings.ContainsAny(w[1:], letters) {
				return true
			}
		}
		return false
	}
	switch name := words[0]; name {
	case "wait":
		if opts("n") {
			return "wait -n"
		}
	case "read":
		if opts("tnNdueip") {
			return "read options"
		}
	case "printf":
		if len(words) > 1 && words[1] == "-v" {
			return "printf -v"
		}
		if len(words) > 1 && strings.Contains(words[1], "%(") {
			return "printf %(T"
		}
	case "trap":
		for _, w := range words[2:] {
			if s := strings.TrimPrefix(strings.ToUpper(w), "SIG"); s != "EXIT" && s != "ERR" && s != "0" && s != "RETURN" && s != "DEBUG" {
				return "trap signal"
			}
		}
	case "ulimit", "umask", "kill", "jobs", "disown", "compgen", "complete", "history", "enable", "caller", "fc", "bg", "fg", "suspend", "times", "bind", "logout":
		return name
	}
	return ""
}

// bashDiffText is the one-line note for a kind of difference.
func bashDiffText(kind string) string {
	const in = " in shell's Bash (mvdan/sh, in-process)"
	switch kind {
	case "PIPESTATUS":
		return "shell: note: PIPESTATUS is never set" + in + "; use set -o pipefail, or run each stage on its own and test $?."
	case "FUNCNAME":
		return "shell: note: FUNCNAME is empty" + in + "; pass the function's name as an argument."
	case "$!":
		return "shell: note: $! is a job handle, not a process id," + in + "; use it only with wait \"$!\"."
	case "${v@Q}":
		return "shell: note: ${var@Q} leaves a word that needs no quoting bare" + in + " (GNU Bash writes 'word'); both read back as the same word."
	case "${@:-}":
		return "shell: note: ${@:-…} and ${*:-…} give nothing" + in + " when there are no arguments; write [ $# -gt 0 ] || set -- DEFAULT first."
	case "coproc":
		return "shell: note: coproc is not supported" + in + "; use a pipeline, or mkfifo and a background job."
	case "declare -ilu":
		return "shell: note: declare/local/typeset -i, -l, -u, -t and -F are not supported" + in + "; write $((…)), ${v,,}, ${v^^}, and declare -f."
	case "fd":
		return "shell: note: file descriptors above 2 (exec 3>…, >&3, {fd}>…) are not supported" + in + "; use a file or a pipe."
	case "wait -n":
		return "shell: note: wait -n is not supported" + in + "; wait for each job (wait \"$pid\") or for all of them (wait)."
	case "read options":
		return "shell: note: read takes only -r, -s, -a and -p" + in + " (no -t, -n, -N, -d, -u, -e, -i, and -p prompts on stdout); read whole lines with IFS= read -r and cut them with ${line:0:N}."
	case "printf -v":
		return "shell: note: printf -v is not supported" + in + "; write VAR=$(printf …) instead."
	case "printf %(T":
		return "shell: note: printf %(…)T is not supported" + in + "; use date +FORMAT."
	case "trap signal":
		return "shell: note: trap handles only EXIT and ERR" + in + "; signal traps (INT, TERM, HUP, …) are refused."
	case "ulimit", "umask":
		return "shell: note: " + kind + " is not available" + in + "; set it around the script instead: #!cmd=" + kind + " … && {.}"
	case "kill":
		return "shell: note: the kill builtin is not available" + in + "; run the kill program: env kill -TERM PID."
	}
	return "shell: note: " + kind + " is not available" + in + "; leave it out."
}

// bashDiffWarnings are the notes for a bash or sh body (nil when it does
// not parse: the worker reports that).
func bashDiffWarnings(body string, lang syntax.LangVariant) []string {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(body), "")
	if err != nil {
		return nil
	}
	var out []string
	for _, k := range bashDiffKinds(f) {
		out = append(out, bashDiffText(k))
	}
	return out
}

// quotedLiteral is the text of a word made of literal and quoted literal
// parts ('%s\n', "x"), up to its first expansion.
func quotedLiteral(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return b.String()
				}
				b.WriteString(lit.Value)
			}
		default:
			return b.String()
		}
	}
	return b.String()
}
