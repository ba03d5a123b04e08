package shebang

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A16: one warning per distinct detected kind. A kind is an interpreter
// wrapper spelled by its family and flag ("python -c", "node -e", "bash -c",
// "--command", …), an interpreter heredoc, or a generic heredoc. Warnings
// are advice only: they never change the command, the result or replay.

const (
	kindInterpHeredoc  = "interpreter heredoc"
	kindGenericHeredoc = "generic heredoc"
)

// shellWarnings parses a Bash (or sh) text and returns one warning per
// distinct kind in first-seen order. Text that does not parse gives none:
// the worker reports the syntax error itself.
func shellWarnings(text string, lang syntax.LangVariant) []string {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(text), "")
	if err != nil {
		return nil
	}
	var kinds []string
	add := func(k string) {
		if k != "" && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		call, _ := st.Cmd.(*syntax.CallExpr)
		var words []string
		if call != nil {
			words = literalWords(call.Args)
		}
		family := ""
		if i := commandIndex(words); i >= 0 {
			family = interpreterFamily(words[i])
			add(wrapperKind(family, words[i+1:]))
		}
		for _, r := range st.Redirs {
			if r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc {
				if family != "" {
					add(kindInterpHeredoc)
				} else {
					add(kindGenericHeredoc)
				}
			}
		}
		return true
	})
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, warningText(k))
	}
	return out
}

// literalWords gives each argument's leading literal text, enough to see
// a flag such as --command='…'; a word starting with an expansion or a
// quote becomes "" so positions are kept.
func literalWords(args []*syntax.Word) []string {
	out := make([]string, len(args))
	for i, w := range args {
		var b strings.Builder
		for _, part := range w.Parts {
			lit, ok := part.(*syntax.Lit)
			if !ok {
				break
			}
			b.WriteString(lit.Value)
		}
		out[i] = b.String()
	}
	return out
}

// commandIndex skips prefix commands that run their arguments (sudo, env,
// command, exec, nohup, timeout N) and their options or assignments.
func commandIndex(words []string) int {
	i := 0
	for i < len(words) {
		switch path.Base(words[i]) {
		case "sudo", "env", "command", "exec", "nohup", "nice":
			i++
			for i < len(words) && (strings.HasPrefix(words[i], "-") || strings.Contains(words[i], "=")) {
				i++
			}
		case "timeout":
			i += 2
		default:
			if words[i] == "" {
				return -1
			}
			return i
		}
	}
	return -1
}

// interpreterFamily maps a command name to the family its wrapper flags
// belong to: python3.12 and pypy3 are "python", zsh is a shell, and so on.
func interpreterFamily(name string) string {
	base := strings.ToLower(path.Base(name))
	base = strings.TrimRight(base, "0123456789.")
	switch base {
	case "python", "pypy":
		return "python"
	case "node", "nodejs", "bun", "deno":
		return "node"
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "fish":
		return "bash"
	case "perl", "ruby", "php", "lua", "luajit", "osascript", "rscript", "tclsh", "pwsh", "powershell":
		return base
	}
	return ""
}

// wrapperKind finds an inline-program flag among the arguments after the
// command name; "" when there is none.
func wrapperKind(family string, args []string) string {
	for _, a := range args {
		long, _, _ := strings.Cut(a, "=")
		switch long {
		case "--command", "--execute":
			return long
		case "--eval", "--print":
			if family == "node" {
				return "node -e"
			}
		}
		if family == "" || !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			continue
		}
		cluster := a[1:]
		switch family {
		case "python", "bash":
			if strings.HasSuffix(cluster, "c") {
				return family + " -c"
			}
		case "node":
			if cluster == "e" || cluster == "p" || cluster == "pe" {
				return "node -e"
			}
		case "perl", "ruby", "lua", "luajit", "osascript", "rscript":
			if strings.ContainsAny(cluster, "eE") {
				return family + " -e"
			}
		case "php":
			if cluster == "r" {
				return "php -r"
			}
		case "pwsh", "powershell":
			if strings.EqualFold(cluster, "c") || strings.EqualFold(cluster, "command") {
				return "--command"
			}
		}
	}
	return ""
}

// warningText is the one-line notice for a kind; the carrier prints it
// before the result.
func warningText(kind string) string {
	switch kind {
	case kindInterpHeredoc:
		return "shell: note: an interpreter heredoc is not needed; start the shell input with a shebang such as #!python3 and write the program as the body."
	case kindGenericHeredoc:
		return "shell: note: a heredoc adds a quoting layer; if it feeds a program, make that program the body behind a shebang (e.g. #!python3) and use #!cmd= for a pipeline around it."
	case "--command", "--execute":
		return "shell: note: " + kind + " passes a program through shell quoting; write the program as the shell input behind a shebang instead."
	}
	return "shell: note: `" + kind + "` wraps a program in shell quoting; write the program as the shell input behind a shebang instead (e.g. #!python3, #!node)."
}
