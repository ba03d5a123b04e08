package shebang

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"hpatch-router/privname"
	"hpatch-router/rows"
)

// directCommand decides A7 direct eligibility for an implicit-Bash body
// without directives. It returns the command Codex runs natively — the body
// minus at most one final line terminator, otherwise unchanged — when the
// body is one physical line that parses as one non-background, non-negated
// simple command whose name is static, not a shell built-in and not a
// private command, and that contains no command or process substitution.
// Everything else (built-ins, composed statements, malformed syntax, …)
// keeps the fixed helper, whose mvdan/sh evaluation is the reference.
func directCommand(body string) (string, bool) {
	line, _, rest := rows.Cut(body)
	// A final backslash would have escaped the terminator we remove (a line
	// continuation), so the native command would mean something else.
	if rest != "" || strings.HasSuffix(line, "\\") {
		return "", false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) != 1 {
		return "", false
	}
	return line, directStmt(f.Stmts[0])
}

func directStmt(st *syntax.Stmt) bool {
	if st.Background || st.Negated || st.Coprocess || st.Disown {
		return false
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	name, ok := staticWord(call.Args[0])
	if !ok || isBuiltin(name) || privname.Is(name) {
		return false
	}
	substituted := false
	syntax.Walk(st, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			substituted = true
		}
		return !substituted
	})
	return !substituted
}

// staticWord is the value of a word that Bash leaves as written: a single
// literal with no escapes, globs, braces or tilde. Quoted names are not
// static here; they simply keep the helper, which is always correct.
func staticWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || lit.Value == "" || strings.ContainsAny(lit.Value, "\\*?[]{}~=") {
		return "", false
	}
	return lit.Value, true
}

// isBuiltin reports Bash built-ins (bash 5.2 `compgen -b`). A built-in run
// natively would execute in Codex's bash instead of the worker's mvdan/sh
// evaluation, so it is never direct.
func isBuiltin(name string) bool {
	switch name {
	case ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller",
		"cd", "command", "compgen", "complete", "compopt", "continue",
		"declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit",
		"export", "false", "fc", "fg", "getopts", "hash", "help", "history",
		"jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf",
		"pushd", "pwd", "read", "readarray", "readonly", "return", "set",
		"shift", "shopt", "source", "suspend", "test", "times", "trap", "true",
		"type", "typeset", "ulimit", "umask", "unalias", "unset", "wait":
		return true
	}
	return false
}
