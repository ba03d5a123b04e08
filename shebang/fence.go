package shebang

import (
	"fmt"
	"strings"

	"hpatch-router/rows"
)

// A Markdown fence (issue 25, issue 35 item 2): Bash would run the text
// between the backticks as a command substitution. One fence (``` or ~~~)
// that ends the input and whose language names an interpreter, or
// nothing, is recovered as that program. What may stand in front of it
// (preamble.go) is dropped (comments, prose, a byte order mark) or kept (a
// shebang and directives); `$ ` prompts are taken off the commands of a
// console fence, and of a shell fence whose every command has one. Any
// other fence is refused with the line it is on.

// fenceInterpreter maps a fence's language (its info string's first word,
// lower case) to the interpreter the fenced program runs with: "" for
// Bash (no shebang). Markdown tags name highlighters, and `sh` highlights
// the Bash models write under it, so sh, shell and bash all mean Bash, as
// do the terminal transcript tags (console, shell-session). Other tags
// (json, diff, text, go, …) name no interpreter: ok is false.
func fenceInterpreter(lang string) (interp string, ok bool) {
	switch lang {
	case "", "bash", "sh", "shell":
		return "", true
	case "console", "shell-session", "shellsession", "terminal":
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

// transcriptLang reports a fence language for a terminal transcript, whose
// lines are `$ ` commands and their output.
func transcriptLang(lang string) bool {
	switch lang {
	case "console", "shell-session", "shellsession", "terminal":
		return true
	}
	return false
}

// fenceOpener reports a line that opens a fence: three or more backticks
// or tildes; mark is that run.
func fenceOpener(t string) (mark string, ok bool) {
	if !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
		return "", false
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	return t[:n], true
}

// closesFence reports a line (trimmed) that closes a fence opened by mark.
func closesFence(t, mark string) bool {
	n := len(t) - len(strings.TrimLeft(t, mark[:1]))
	return n >= len(mark) && n == len(t)
}

// fence is a Markdown code fence that ends the input.
type fence struct {
	line  int    // line of the opening fence
	mark  string // its ``` or ~~~ run
	lang  string // first word of the info string, lower case
	inner string // the lines between the fences, byte for byte
}

// parseFence reads the fence that opens at off (on line): its closing
// fence must be the last non-blank line, with no other fence line between
// them, except in a shell fence whose heredocs hold them (a script that
// writes Markdown).
func parseFence(input string, off, line int) (fence, error) {
	open, _, after := rows.Cut(input[off:])
	next := len(input) - len(after)
	t := trimBlank(strings.TrimPrefix(open, byteOrderMark))
	mark, ok := fenceOpener(t)
	f := fence{line: line, mark: mark}
	if !ok {
		return f, habitDiag(HabitFence, line, "internal: no fence opens here")
	}
	if w := fields(t[len(mark):]); len(w) > 0 {
		f.lang = strings.ToLower(w[0])
	}
	closeOff, closeLine := -1, 0 // the first closing line
	lastOff, lastText := -1, ""  // the last non-blank line
	for o, num := next, line+1; o < len(input); num++ {
		text, _, rest := rows.Cut(input[o:])
		if c := trimBlank(text); c != "" {
			if closeOff < 0 && closesFence(c, mark) {
				closeOff, closeLine = o, num
			}
			lastOff, lastText = o, c
		}
		o = len(input) - len(rest)
	}
	if closeOff < 0 {
		return f, habitDiag(HabitFence, line, "a Markdown fence opens here and never closes; send the program itself without "+mark+" lines (a shebang such as #!python3 picks the interpreter)")
	}
	if lastOff != closeOff {
		if interp, ok := fenceInterpreter(f.lang); !ok || interp != "" || !closesFence(lastText, mark) || !heredocsHoldFences(input[next:lastOff], mark) {
			return f, habitDiag(HabitFence, lineAfter(input, closeOff, closeLine), fmt.Sprintf("text after the Markdown fence that closes on line %d; send one program per call, without %s lines", closeLine, mark))
		}
		closeOff = lastOff
	}
	f.inner = input[next:closeOff]
	if _, l := firstNonBlank(f.inner); l > rows.Count(f.inner) {
		return f, habitDiag(HabitFence, line, "the Markdown fence holds no program; send the program itself")
	}
	return f, nil
}

// lineAfter is the number of the first non-blank line after the line at
// off (numbered num).
func lineAfter(input string, off, num int) int {
	_, _, rest := rows.Cut(input[off:])
	_, l := firstNonBlank(rest)
	return num + l
}

// heredocsHoldFences reports Bash text whose every line that opens or
// closes a fence of mark is data: in a heredoc body or a quoted string.
func heredocsHoldFences(src, mark string) bool {
	return codeLine(src, func(t string) bool {
		_, opens := fenceOpener(t)
		return opens || closesFence(t, mark)
	}) == 0
}

// translateFence recovers a fenced program whose language names an
// interpreter or nothing: the fence lines (and what preamble.go drops) go,
// a shebang or directives before the fence are kept, and a language
// without a shebang becomes that shebang.
func translateFence(input string, line int, opts Options) (*Plan, error) {
	off := lineOffset(input, line)
	pre, err := readPreamble(input[:off])
	if err != nil {
		return nil, err
	}
	f, err := parseFence(input, off, line)
	if err != nil {
		return nil, err
	}
	if h, l := shellForeignSyntax(f.inner); h != HabitNone {
		if h == HabitFence {
			return nil, habitDiag(HabitFence, l+f.line, "a Markdown fence inside a fence; send the program itself without "+f.mark+" lines")
		}
		return nil, foreignDiag(h, l+f.line, f.inner)
	}
	interp, ok := fenceInterpreter(f.lang)
	if !ok {
		return nil, habitDiag(HabitFence, f.line, fmt.Sprintf("the fence's language %q names no interpreter shell runs; send the program itself, with a shebang such as #!python3 for its interpreter", clipTag(f.lang)))
	}
	inner, prompts, err := stripPrompts(f.inner, f.line, interp == "", transcriptLang(f.lang))
	if err != nil {
		return nil, err
	}
	if pre.hasShebang && f.lang != "" && family(pre.shebang) != family(interp) {
		return nil, habitDiag(HabitFence, pre.shebangLine, fmt.Sprintf("the shebang names %s but the fence after it is %s; send the program itself with one shebang", clipTag(pre.shebang), clipTag(f.lang)))
	}
	src, shift := pre.header+inner, f.line-rows.Count(pre.header)
	if first, _, _ := rows.Cut(inner); interp != "" && !pre.hasShebang && !strings.HasPrefix(trimBlank(first), "#!") {
		src, shift = "#!"+interp+"\n"+src, shift-1
	}
	p, err := translateHeader(src, opts)
	if err != nil {
		return nil, shiftDiag(err, shift)
	}
	ran := p.Interpreter
	if ran == "" {
		ran = "Code Mode JavaScript"
	}
	dropped := f.mark + " lines"
	if pre.dropped > 0 {
		dropped += fmt.Sprintf(" and the %d line(s) of text before it", pre.dropped)
	}
	switch {
	case prompts && transcriptLang(f.lang):
		dropped += ", the $ prompts and the output they show"
	case prompts:
		dropped += " and the $ prompts"
	}
	p.recovered(HabitFence, "shell: note: the input was a Markdown fence, so its "+dropped+" were dropped and it ran as "+ran+"; send the program itself (a shebang such as #!python3 picks the interpreter).")
	return p, nil
}

// family is an interpreter's family for comparing a shebang with a fence
// language; "" is Bash.
func family(interp string) string {
	if interp == "" {
		return "bash"
	}
	if f := interpreterFamily(interp); f != "" {
		return f
	}
	return interp
}

// lineOffset is the offset of line (1-based) in s.
func lineOffset(s string, line int) int {
	off := 0
	for n := 1; n < line && off < len(s); n++ {
		_, _, rest := rows.Cut(s[off:])
		off = len(s) - len(rest)
	}
	return off
}

// clipTag shortens a fence's language for a diagnostic.
func clipTag(s string) string {
	if len(s) > 24 {
		s = s[:24]
	}
	return strings.ToValidUTF8(s, "")
}
