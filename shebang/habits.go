package shebang

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"hpatch-router/rows"
	"hpatch-router/shebang/bashquote"
)

// Habits (issue 25): shapes a model brings from other tools. Each is
// answered before anything runs, either by the program the model meant
// (recovered, with a note) or by a one-line diagnostic that names the
// mistake and shows the right form. The rules look at where an input
// starts and at fence lines, so Bash whose first non-blank line starts
// with none of the markers below, and whose fence-like lines are in
// heredocs or quoted strings, is never touched:
//
//   - "```" or "~~~": a Markdown fence (recovered when it ends the input
//     and its language names an interpreter or nothing; refused
//     otherwise). Behind a comment, prose, a BOM or a header too, and a
//     fence line among code anywhere (preamble.go).
//   - "{" or "[" starting an input that is one JSON object or array as a
//     whole: the program wrapped in JSON (refused: shell takes the text).
//   - "*** Begin Patch": an apply_patch envelope (refused: Bash would
//     expand *** to file names and run the first one), also behind a
//     comment, prose or a BOM.
//   - "--- " followed by "+++ ", or "diff --git ": a unified diff (refused).
//   - "#!" after blank lines (recovered, translateHeader), and the
//     directive near misses of nearmiss.go (`#!cmd TEMPLATE`,
//     `!params {…}`): recovered or refused in parseHeader.
//
// The fence rules are in fence.go.

// Habit names the foreign shape an input was written in.
type Habit string

const (
	HabitNone       Habit = ""
	HabitFence      Habit = "fence"       // a Markdown code fence
	HabitJSON       Habit = "json"        // the program wrapped in JSON
	HabitApplyPatch Habit = "apply_patch" // a `*** Begin Patch` envelope
	HabitDiff       Habit = "diff"        // a unified diff
	HabitBlankLine  Habit = "blank_line"  // blank lines before the header
	HabitDirective  Habit = "directive"   // a directive spelled slightly wrong
	HabitJavaScript Habit = "javascript"  // Code Mode JavaScript (A16)
)

// ForeignSyntax reports an input written for another tool: a Markdown
// fence, a JSON object or array, an apply_patch envelope or a unified
// diff, judged by its first non-blank line (JSON: the whole input), and
// the 1-based line where it starts. Package retain asks it for hpatch
// input; Translate answers each kind for shell.
func ForeignSyntax(input string) (Habit, int) {
	off, line := firstNonBlank(input)
	if off == len(input) {
		return HabitNone, 0
	}
	first, _, after := rows.Cut(input[off:])
	t := trimBlank(strings.TrimPrefix(first, byteOrderMark))
	_, fenced := fenceOpener(t)
	switch {
	case t == "":
	case fenced:
		return HabitFence, line
	case strings.HasPrefix(t, "*** Begin Patch"):
		return HabitApplyPatch, line
	case (t[0] == '{' || t[0] == '[') && json.Valid([]byte(input[off:])) && !isTestCommand(t, input[off:]):
		return HabitJSON, line
	case strings.HasPrefix(t, "diff --git "):
		return HabitDiff, line
	case strings.HasPrefix(t, "--- "):
		second, _, _ := rows.Cut(after)
		if strings.HasPrefix(second, "+++ ") {
			return HabitDiff, line
		}
	}
	return HabitNone, 0
}

// shellForeignSyntax is ForeignSyntax for a shell input, which Bash would
// otherwise run: a fence or an envelope is also found behind a comment,
// prose or a header, and a fence line among code (preamble.go).
func shellForeignSyntax(input string) (Habit, int) {
	if h, line := ForeignSyntax(input); h != HabitNone {
		return h, line
	}
	return behindPreamble(input)
}

// isTestCommand reports a JSON array that is also Bash's test command:
// `[ ]`, `[ "a" ]` or `[ 1 ]` ("[" then a blank, at most one operand). A
// wrapped argv has a comma, which no `[ … ]` test holds.
func isTestCommand(first, input string) bool {
	if len(first) < 2 || first[0] != '[' || first[1] != ' ' && first[1] != '\t' {
		return false
	}
	var elems []json.RawMessage
	return json.Unmarshal([]byte(input), &elems) == nil && len(elems) < 2
}

// firstNonBlank is the offset and 1-based number of the first line that
// holds more than ASCII spaces and tabs (len(s) when there is none).
func firstNonBlank(s string) (off, line int) {
	line = 1
	for rest := s; len(rest) > 0; line++ {
		text, _, after := rows.Cut(rest)
		if trimBlank(text) != "" {
			return len(s) - len(rest), line
		}
		rest = after
	}
	return len(s), line
}

// foreignDiag is the shell diagnostic for a foreign input other than a
// recoverable fence.
func foreignDiag(h Habit, line int, input string) *Diagnostic {
	switch h {
	case HabitJSON:
		return habitDiag(h, line, "shell takes the program itself, not JSON: send "+jsonProgramHint(input)+" as the whole input, or a shebang line and the body")
	case HabitApplyPatch:
		return habitDiag(h, line, "this is an apply_patch envelope, which Bash would run (*** expands to file names); send it to the workspace's own patch tool (apply_patch), or edit files and @shell/<id> scripts with hpatch")
	case HabitDiff:
		return habitDiag(h, line, "this is a unified diff, not a program; edit workspace files with the workspace's own patch tool (apply_patch), or edit files and @shell/<id> scripts with hpatch")
	}
	return habitDiag(h, line, "shell takes the program itself; send its text")
}

// jsonProgramHint names the program inside a JSON wrapper when it is short
// enough to quote on the diagnostic's one line: `ls -la` for
// {"cmd":"ls -la"}, `ls` for {"command":["bash","-lc","ls"]}; otherwise it
// says which member holds it.
func jsonProgramHint(input string) string {
	var v any
	if json.Unmarshal([]byte(input), &v) != nil {
		return "the command (e.g. ls -la)"
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if s, ok := programText(v); ok && quotable(s) {
			return "`" + s + "`"
		}
		return "the command (e.g. ls -la)"
	}
	// The members a model puts its program in, in the order looked for.
	for _, k := range []string{"cmd", "command", "input", "script", "code", "program", "source"} {
		val, ok := obj[k]
		if !ok {
			continue
		}
		if s, ok := programText(val); ok {
			if !quotable(s) {
				return fmt.Sprintf("the text of %q itself", k)
			}
			return "`" + s + "`"
		}
		return fmt.Sprintf("the program in %q itself", k)
	}
	return "the command (e.g. ls -la)"
}

// quotable reports a program short and plain enough to show on the
// diagnostic's one line.
func quotable(s string) bool {
	return s != "" && !strings.ContainsAny(s, "\r\n`") && utf8.RuneCountInString(s) <= 80
}

// programText is the program a JSON value holds: a string, or an argv
// array whose shell wrapper (bash -lc X, sh -c X) is dropped.
func programText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []any:
		words := make([]string, 0, len(v))
		for _, w := range v {
			s, ok := w.(string)
			if !ok {
				return "", false
			}
			words = append(words, s)
		}
		if len(words) == 3 && shellFamily(words[0]) != "" && (words[1] == "-c" || words[1] == "-lc") {
			return words[2], true
		}
		for i, w := range words {
			if q, err := bashquote.Word(w); err == nil {
				words[i] = q
			}
		}
		return strings.Join(words, " "), len(words) > 0
	}
	return "", false
}

// translateHeader tolerates blank lines before a header, then translates.
func translateHeader(input string, opts Options) (*Plan, error) {
	if off, line, ok := blankBeforeHeader(input); ok {
		return recoverSub(input[off:], line-1, HabitBlankLine,
			fmt.Sprintf("shell: note: the blank line(s) before the header on line %d were ignored; start the input with it.", line), opts)
	}
	return translate(input, opts)
}

// blankBeforeHeader finds a shebang or a leading directive that follows
// only blank lines (leading blanks on the line are tolerated already, so
// blank lines are too). A #!script= rerun is left alone: it must be the
// whole input, and its note says so.
func blankBeforeHeader(input string) (off, line int, ok bool) {
	off, line = firstNonBlank(input)
	if line == 1 || off == len(input) {
		return 0, 0, false
	}
	text, _, _ := rows.Cut(input[off:])
	t := trimBlank(text)
	kind, _, _ := classifyDirective(t)
	switch {
	case kind == dirScript:
		return 0, 0, false
	case strings.HasPrefix(t, "#!"), kind != dirNone, isNearMiss(t):
		return off, line, true
	}
	return 0, 0, false
}

// recoverSub translates the part of an input that starts at its header,
// shift lines down, and marks the plan recovered.
func recoverSub(src string, shift int, h Habit, note string, opts Options) (*Plan, error) {
	p, err := translate(src, opts)
	if err != nil {
		return nil, shiftDiag(err, shift)
	}
	p.recovered(h, note)
	return p, nil
}

// shiftDiag moves a diagnostic of a part of the input to the input's own
// line numbers.
func shiftDiag(err error, shift int) error {
	if d, ok := err.(*Diagnostic); ok && d.Line > 0 {
		d.Line += shift
	}
	return err
}

// recovered marks a plan as the program the model meant rather than the
// text it sent. Like recovered JavaScript (A16), it is not retained (the
// model resends it in the right form), metrics count it as recovered, and
// replay restores the model's own call; notes come first.
func (p *Plan) recovered(h Habit, notes ...string) {
	p.Kind, p.Habit, p.Retainable = KindRecovered, h, false
	p.Warnings = append(slices.Clip(notes), p.Warnings...)
}
