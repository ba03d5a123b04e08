package shebang

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"hpatch-router/rows"
)

// What can stand in front of a habit (issue 35 item 2): a model writes a
// comment, a line of prose that introduces the block ("Run this:"), a byte
// order mark, or a shebang and directives, and then a Markdown fence or an
// apply_patch envelope. Bash would run the fence as a command substitution
// and expand the envelope's *** to file names, so the habit is found
// behind them: a fence is recovered (the comments and prose dropped, the
// header kept), an envelope refused. Bash whose lines in front are
// anything else is left alone.

// preambleLine classifies one non-blank line in front of a habit (BOM
// trimmed): a comment, prose ending in ':', or a header line (a shebang
// or a directive). ok is false for anything else.
func preambleLine(t string) (header, ok bool) {
	switch kind, _, _ := classifyDirective(t); {
	case strings.HasPrefix(t, "#!"), kind != dirNone:
		return true, true
	case strings.HasPrefix(t, "#"):
		return false, true
	case strings.HasSuffix(t, ":") && !strings.ContainsAny(t, "|&;<>$`(){}[]=\"'\\") && len(fields(t)) > 1:
		return false, true // "Here is the script:", "Run it with:"
	}
	return false, false
}

// behindPreamble finds a fence or an apply_patch envelope after lines that
// preambleLine accepts (at least one), and the line it is on.
func behindPreamble(input string) (Habit, int) {
	line, seen := 1, false
	for rest := input; rest != ""; line++ {
		text, _, after := rows.Cut(rest)
		rest = after
		t := trimBlank(strings.TrimPrefix(text, byteOrderMark))
		if t == "" {
			continue
		}
		if _, ok := fenceOpener(t); ok && seen {
			return HabitFence, line
		}
		if strings.HasPrefix(t, "*** Begin Patch") && seen {
			return HabitApplyPatch, line
		}
		if _, ok := preambleLine(t); !ok {
			return fenceInCode(input)
		}
		seen = true
	}
	return HabitNone, 0
}

// fenceInCode finds a fence line that Bash would run: the first line that
// opens a fence outside a heredoc body or a quoted string. A script that
// writes Markdown through a heredoc or prints it from a string is Bash and
// left alone.
func fenceInCode(input string) (Habit, int) {
	l := codeLine(input, func(t string) bool { _, ok := fenceOpener(t); return ok })
	if l == 0 {
		return HabitNone, 0
	}
	return HabitFence, l
}

// codeLine is the number of the first line (trimmed, BOM dropped) that
// match accepts and that Bash would read as code, not as the body of a
// heredoc or the inside of a quoted string; 0 when there is none. Text
// that does not parse as Bash is all code.
func codeLine(src string, match func(string) bool) int {
	var lines []uint
	line := uint(1)
	for rest := src; rest != ""; line++ {
		text, _, after := rows.Cut(rest)
		rest = after
		if match(trimBlank(strings.TrimPrefix(text, byteOrderMark))) {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return 0
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return int(lines[0])
	}
	var data [][2]uint // line ranges that are data, not code
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			if n.Hdoc != nil {
				data = append(data, [2]uint{n.Hdoc.Pos().Line(), n.Hdoc.End().Line()})
			}
		case *syntax.SglQuoted, *syntax.DblQuoted:
			if from, to := n.Pos().Line(), n.End().Line(); to > from {
				data = append(data, [2]uint{from + 1, to})
			}
		}
		return true
	})
	for _, l := range lines {
		inData := false
		for _, d := range data {
			inData = inData || l >= d[0] && l <= d[1]
		}
		if !inData {
			return int(l)
		}
	}
	return 0
}

// preamble is what stands in front of a fence.
type preamble struct {
	header      string // the shebang and directive lines, kept
	hasShebang  bool
	shebang     string // the interpreter the shebang names ("" for bash and sh)
	shebangLine int
	dropped     int // comment, prose and BOM-only lines
}

// readPreamble splits the text in front of a fence (whole lines) into the
// header it keeps and the lines it drops. A header line after a comment or
// prose is refused: a shebang counts only on the first line.
func readPreamble(pre string) (preamble, error) {
	var p preamble
	line := 1
	for rest := pre; rest != ""; line++ {
		text, term, after := rows.Cut(rest)
		rest = after
		t := trimBlank(strings.TrimPrefix(text, byteOrderMark))
		if t == "" {
			if strings.Contains(text, byteOrderMark) {
				p.dropped++
			}
			continue
		}
		header, ok := preambleLine(t)
		if !ok {
			return p, habitDiag(HabitFence, line, "text before the Markdown fence that is neither a comment nor a line introducing it; send the program itself without fence lines (a shebang such as #!python3 picks the interpreter)")
		}
		if !header {
			p.dropped++
			continue
		}
		if p.dropped > 0 && strings.HasPrefix(t, "#!") && p.header == "" {
			return p, habitDiag(HabitFence, line, "a shebang after other text is not a shebang; start the input with it and send the program without Markdown fence lines")
		}
		if p.header == "" && isShebangLine(t) {
			if w := fields(strings.TrimPrefix(t, "#!")); len(w) > 0 {
				p.hasShebang, p.shebang, p.shebangLine = true, shebangName(w), line
			}
		}
		p.header += strings.TrimPrefix(text, byteOrderMark) + term
		if term == "" {
			p.header += "\n"
		}
	}
	return p, nil
}

// isShebangLine reports a `#!` line that is a shebang, not a directive
// or a directive's near miss, as parseHeader reads it.
func isShebangLine(t string) bool {
	kind, _, _ := classifyDirective(t)
	return strings.HasPrefix(t, "#!") && (kind == dirNone || kind == dirUnknown && !isDirectiveShaped(t) && !isNearMiss(t))
}

// shebangName is the interpreter a shebang's fields name, as a fence
// language would map it: env and its options skipped, bash/sh as "".
func shebangName(w []string) string {
	for len(w) > 0 && (baseName(w[0]) == "env" || strings.HasPrefix(w[0], "-")) {
		w = w[1:]
	}
	if len(w) == 0 {
		return ""
	}
	name := baseName(w[0])
	if name == "bash" || name == "sh" {
		return ""
	}
	return name
}

// stripPrompts takes the `$ ` prompts off a fenced transcript. In a
// transcript fence (console, shell-session) the `$ ` lines are the
// commands, `> ` lines after one continue it, and every other line is
// output, dropped. In a shell fence a `$ ` on every command is a prompt
// too, but a line without one beside them is ambiguous and refused. A
// fence without `$ ` lines is the program as it is. changed reports a
// rewrite.
func stripPrompts(inner string, fenceLine int, shell, transcript bool) (out string, changed bool, err error) {
	if !shell || !hasPromptLine(inner) {
		return inner, false, nil
	}
	var b strings.Builder
	inCmd := false
	line := fenceLine
	for rest := inner; rest != ""; {
		line++
		text, term, after := rows.Cut(rest)
		rest = after
		t := strings.TrimLeft(text, " \t")
		switch {
		case t == "$" || strings.HasPrefix(t, "$ "):
			b.WriteString(strings.TrimPrefix(strings.TrimPrefix(t, "$"), " ") + term)
			inCmd = true
		case inCmd && (t == ">" || strings.HasPrefix(t, "> ")):
			b.WriteString(strings.TrimPrefix(strings.TrimPrefix(t, ">"), " ") + term)
		case trimBlank(text) == "":
			b.WriteString(term)
		case transcript:
			inCmd = false // output
		default:
			return "", false, habitDiag(HabitFence, line, fmt.Sprintf("line %d of the fence has no $ prompt while others have one, so it is neither clearly a command nor output; send the commands only, without prompts", line))
		}
	}
	return b.String(), true, nil
}

// hasPromptLine reports a line that starts with a `$ ` prompt.
func hasPromptLine(s string) bool {
	for rest := s; rest != ""; {
		text, _, after := rows.Cut(rest)
		rest = after
		if t := strings.TrimLeft(text, " \t"); t == "$" || strings.HasPrefix(t, "$ ") {
			return true
		}
	}
	return false
}
