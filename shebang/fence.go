package shebang

import (
	"fmt"
	"strings"

	"hpatch-router/rows"
)

// A Markdown fence (issue 25): Bash would run the text between the
// backticks as a command substitution. One fence that is the whole input
// and whose language names an interpreter, or nothing, is recovered as
// that program; any other fence is refused with the line it is on.

// fenceInterpreter maps a fence's language (its info string's first word,
// lower case) to the interpreter the fenced program runs with: "" for
// Bash (no shebang). Markdown tags name highlighters, and `sh` highlights
// the Bash models write under it, so sh, shell and bash all mean Bash.
// Other tags (json, diff, text, go, …) name no interpreter: ok is false.
func fenceInterpreter(lang string) (interp string, ok bool) {
	switch lang {
	case "", "bash", "sh", "shell":
		return "", true
	case "python", "python3", "py":
		return "python3", true
	case "javascript", "js", "node", "mjs":
		return "node", true
	case "ruby", "rb":
		return "ruby", true
	case "perl", "lua", "zsh", "fish":
		return lang, true
	}
	return "", false
}

// fence is a Markdown code fence that is the whole input.
type fence struct {
	line  int    // line of the opening ```
	lang  string // first word of the info string, lower case
	inner string // the lines between the fences, byte for byte
}

// parseFence reads the fence that opens on line (the first non-blank
// line): its closing fence must be the last non-blank line, with no other
// fence line between them.
func parseFence(input string, line int) (fence, error) {
	off, _ := firstNonBlank(input)
	open, _, after := rows.Cut(input[off:])
	next := len(input) - len(after)
	t := trimBlank(open)
	ticks := len(t) - len(strings.TrimLeft(t, "`"))
	f := fence{line: line}
	if w := fields(t[ticks:]); len(w) > 0 {
		f.lang = strings.ToLower(w[0])
	}
	closeOff, closeLine := -1, 0
	for off, num := next, line+1; off < len(input); num++ {
		text, _, rest := rows.Cut(input[off:])
		after := len(input) - len(rest)
		if c := trimBlank(text); c != "" {
			if closeOff >= 0 {
				return f, habitDiag(HabitFence, num, fmt.Sprintf("text after the Markdown fence that closes on line %d; send one program per call, without ``` lines", closeLine))
			}
			if n := len(c) - len(strings.TrimLeft(c, "`")); n >= ticks && n == len(c) {
				closeOff, closeLine = off, num
			}
		}
		off = after
	}
	if closeOff < 0 {
		return f, habitDiag(HabitFence, line, "a Markdown fence opens here and never closes; send the program itself without ``` lines (a shebang such as #!python3 picks the interpreter)")
	}
	f.inner = input[next:closeOff]
	if _, l := firstNonBlank(f.inner); l > rows.Count(f.inner) {
		return f, habitDiag(HabitFence, line, "the Markdown fence holds no program; send the program itself")
	}
	return f, nil
}

// translateFence recovers a fenced program whose language names an
// interpreter or nothing: the fence lines are dropped, and a language
// without a shebang inside becomes that shebang.
func translateFence(input string, line int, opts Options) (*Plan, error) {
	f, err := parseFence(input, line)
	if err != nil {
		return nil, err
	}
	if h, l := ForeignSyntax(f.inner); h != HabitNone {
		if h == HabitFence {
			return nil, habitDiag(HabitFence, l+f.line, "a Markdown fence inside a fence; send the program itself without ``` lines")
		}
		return nil, foreignDiag(h, l+f.line, f.inner)
	}
	interp, ok := fenceInterpreter(f.lang)
	if !ok {
		return nil, habitDiag(HabitFence, f.line, fmt.Sprintf("the fence's language %q names no interpreter shell runs; send the program itself, with a shebang such as #!python3 for its interpreter", clipTag(f.lang)))
	}
	src, shift := f.inner, f.line
	if first, _, _ := rows.Cut(f.inner); interp != "" && !strings.HasPrefix(trimBlank(first), "#!") {
		src, shift = "#!"+interp+"\n"+f.inner, f.line-1
	}
	p, err := translateHeader(src, opts)
	if err != nil {
		return nil, shiftDiag(err, shift)
	}
	ran := p.Interpreter
	if ran == "" {
		ran = "Code Mode JavaScript"
	}
	p.recovered(HabitFence, "shell: note: the input was a Markdown fence, so its ``` lines were dropped and it ran as "+ran+"; send the program itself (a shebang such as #!python3 picks the interpreter).")
	return p, nil
}

// clipTag shortens a fence's language for a diagnostic.
func clipTag(s string) string {
	if len(s) > 24 {
		s = s[:24]
	}
	return strings.ToValidUTF8(s, "")
}
