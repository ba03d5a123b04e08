package shebang

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A16: one warning per distinct detected kind. A kind is an interpreter
// wrapper spelled by its family and flag ("python -c", "node -e", "bash -c",
// "psql -c", "deno eval", …), an interpreter heredoc or here-string, or a
// generic heredoc. Warnings are advice only: they never change the
// command, the result or replay.
//
// Detection reads each simple command as its program would: prefix
// commands (sudo, env, timeout, …) are skipped with the options that take
// a value, so `sudo -u bob python3 -c …` is python's -c and not a command
// named bob; an interpreter's own options are read until its first
// operand, so `python3 script.py -c x` passes -c to the script and warns
// nothing. The inline program of a shell wrapper (`bash -lc '…'`) is
// scanned too, so a heredoc inside it is found.

const (
	kindInterpHeredoc    = "interpreter heredoc"
	kindInterpHereString = "interpreter here-string"
	kindGenericHeredoc   = "generic heredoc"
)

// maxNesting bounds how deep inline shell programs are scanned.
const maxNesting = 3

// shellWarnings parses a Bash (or sh) text and returns one warning per
// distinct kind in first-seen order. Text that does not parse gives none:
// the worker reports the syntax error itself.
func shellWarnings(text string, lang syntax.LangVariant) []string {
	var kinds []string
	collectKinds(text, lang, 0, &kinds)
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, warningText(k))
	}
	return out
}

func collectKinds(text string, lang syntax.LangVariant, depth int, kinds *[]string) {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(text), "")
	if err != nil {
		return
	}
	add := func(k string) {
		if k != "" && !slices.Contains(*kinds, k) {
			*kinds = append(*kinds, k)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		var inv invocation
		if call, ok := st.Cmd.(*syntax.CallExpr); ok {
			inv = invocationOf(call.Args)
		}
		add(inv.kind)
		if inv.inline != nil && inv.family == "bash" && depth < maxNesting {
			// A fresh Config: no environment, and command substitutions
			// fail instead of running, so only literal programs are read.
			if prog, err := expand.Literal(&expand.Config{}, inv.inline); err == nil {
				collectKinds(prog, syntax.LangBash, depth+1, kinds)
			}
		}
		for _, r := range st.Redirs {
			switch {
			case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && inv.readsProgram:
				add(kindInterpHeredoc)
			case r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc:
				add(kindGenericHeredoc)
			case r.Op == syntax.WordHdoc && inv.readsProgram:
				add(kindInterpHereString)
			}
		}
		return true
	})
}

// invocation is what one simple command does with its arguments.
type invocation struct {
	family string // interpreter family (interpreterFamily), "" for other commands
	kind   string // wrapper kind, "" when the program is not inline
	// inline is the argument that holds the inline program, when it is a
	// separate word (bash -c 'PROGRAM').
	inline *syntax.Word
	// readsProgram: a script interpreter given no program operand, so a
	// heredoc or here-string on its stdin is the program.
	readsProgram bool
}

// invocationOf reads the command a simple command runs (after prefix
// commands) and that command's own options, up to its first operand.
func invocationOf(args []*syntax.Word) invocation {
	words := literalWords(args)
	i := commandIndex(words)
	if i < 0 {
		return invocation{}
	}
	inv := invocation{family: interpreterFamily(words[i])}
	if inv.family == "" {
		return inv
	}
	j, programGiven := i+1, false
	for ; j < len(words) && inv.kind == "" && !programGiven; j++ {
		w := words[j]
		if w == "--" {
			j++
			break
		}
		if len(w) < 2 || w[0] != '-' && !(w[0] == '+' && inv.family == "bash") {
			break
		}
		var next int
		next, programGiven = inv.option(w)
		if next > 0 && j+next < len(args) && inv.kind != "" {
			inv.inline = args[j+next]
		}
		j += max(next, 0)
	}
	if inv.kind != "" || programGiven {
		return inv
	}
	operands := words[min(j, len(words)):]
	switch {
	case inv.family == "deno":
		if len(operands) > 0 && operands[0] == "eval" {
			inv.kind = "deno eval"
		}
	case isSQLClient(inv.family):
		if (inv.family == "sqlite3" || inv.family == "duckdb") && len(operands) >= 2 {
			inv.kind = inv.family + " SQL argument"
		}
	default:
		inv.readsProgram = inv.readsProgram || len(operands) == 0 || operands[0] == "-"
	}
	return inv
}

// option reads one option word of inv's family. next is how many words
// after it belong to it (1 when it takes the following word as its value);
// programGiven reports an option that names the program (python -m), after
// which the arguments belong to that program.
func (inv *invocation) option(w string) (next int, programGiven bool) {
	if wordOptions(inv.family) {
		name := strings.ToLower(strings.TrimLeft(w, "-"))
		name, _, hasValue := strings.Cut(name, "=")
		if inv.kind = inlineWordOption(inv.family, name); inv.kind != "" || valueWordOption(inv.family, name) {
			if hasValue {
				return 0, false
			}
			return 1, false
		}
		return 0, false
	}
	if strings.HasPrefix(w, "--") {
		name, _, hasValue := strings.Cut(w, "=")
		inv.kind = inlineLong(inv.family, name)
		if (inv.kind != "" || valueLong(inv.family, name)) && !hasValue {
			return 1, false
		}
		return 0, false
	}
	for k := 1; k < len(w); k++ {
		c := w[k]
		last := k == len(w)-1
		switch {
		case inv.family == "python" && c == 'm':
			return 0, true
		case inv.family == "bash" && c == 's':
			inv.readsProgram = true
		}
		if inv.kind = inlineShort(inv.family, c); inv.kind != "" {
			if last {
				return 1, false
			}
			return 0, false
		}
		if valueShort(inv.family, c) {
			if last {
				return 1, false
			}
			return 0, false // the value is attached: -Wignore
		}
	}
	return 0, false
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

// commandIndex skips prefix commands that run their operands as a command
// (sudo -u bob, env -C dir, timeout 5, xargs -I{} …) with their options,
// the values those options take, and env's assignments.
func commandIndex(words []string) int {
	i := 0
	for i < len(words) {
		spec, ok := prefixSpec(baseName(words[i]))
		if !ok {
			if words[i] == "" {
				return -1
			}
			return i
		}
		i++
		for i < len(words) {
			w := words[i]
			switch {
			case w == "--":
				i++
			case strings.HasPrefix(w, "--"):
				name, _, hasValue := strings.Cut(w, "=")
				i++
				if !hasValue && slices.Contains(spec.valueLong, name) {
					i++
				}
				continue
			case len(w) > 1 && w[0] == '-':
				i += 1 + shortValueWords(w, spec.valueShort)
				continue
			case spec.assignments && strings.Contains(w, "=") && w[0] != '=':
				i++
				continue
			}
			break
		}
		i += spec.operands
	}
	return -1
}

// shortValueWords is 1 when the option cluster w ends with a letter that
// takes the next word as its value, else 0 (no such letter, or the value
// is attached: -uroot).
func shortValueWords(w, valueShort string) int {
	for k := 1; k < len(w); k++ {
		if strings.IndexByte(valueShort, w[k]) >= 0 {
			if k == len(w)-1 {
				return 1
			}
			return 0
		}
	}
	return 0
}

// baseName is the last path element of a command name.
func baseName(name string) string { return name[strings.LastIndexByte(name, '/')+1:] }
