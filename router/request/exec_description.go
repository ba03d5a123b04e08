package request

import (
	"strings"

	"hpatch-router/shebang"
)

// execCommandHeading is the Markdown heading Codex gives the nested
// exec_command tool inside the Code Mode exec description.
const execCommandHeading = "### `exec_command`"

// nestedExecCommand is what must not survive anywhere in the owner
// description: once `shell` exists, the model should not be taught to
// reach exec_command through JavaScript.
const nestedExecCommand = "tools.exec_command"

// trimmedExec is the outcome of rewriting one exec owner description.
type trimmedExec struct {
	// Description is the owner description without the exec_command
	// section and without any clause naming tools.exec_command.
	Description string
	// Shape is the exec_command parameter shape found in the removed
	// section, or the zero value when none was recognizable.
	Shape shebang.ParamsShape
}

// trimExecDescription rewrites the Code Mode exec description (A13). It is
// a pure function of its input, which keeps the rewritten request
// deterministic for the upstream prompt cache.
func trimExecDescription(desc string) trimmedExec {
	var out trimmedExec
	first := true
	for {
		start, end, ok := findSection(desc, execCommandHeading)
		if !ok {
			break
		}
		if first {
			out.Shape = shebang.ParseParamsShape(desc[start:end])
			if !safeShape(out.Shape.Fields) {
				out.Shape = shebang.ParamsShape{}
			}
			first = false
		}
		before := desc[:start]
		if end == len(desc) {
			// The section was the last one: drop the blank lines that
			// separated it from its predecessor instead of leaving them
			// dangling at the end.
			before = strings.TrimRight(before, "\r\n")
		}
		desc = before + desc[end:]
	}
	out.Description = removeNestedExamples(desc)
	return out
}

// safeShape rejects extracted text that would break the #!params block of
// the shell description or reintroduce the nested exec_command example.
func safeShape(fields string) bool {
	return !strings.Contains(fields, "```") && !strings.Contains(fields, nestedExecCommand)
}

// findSection locates the Markdown section whose heading line is exactly
// heading (trailing spaces or CR tolerated). It ends at the next `## ` or
// `### ` heading outside a code fence, or at the end of text. Headings
// inside ``` fences are code, not structure.
func findSection(desc, heading string) (start, end int, ok bool) {
	inFence := false
	start = -1
	for off := 0; off < len(desc); {
		nl := strings.IndexByte(desc[off:], '\n')
		next := len(desc)
		if nl >= 0 {
			next = off + nl + 1
		}
		line := strings.TrimRight(desc[off:next], "\r\n")
		switch {
		case strings.HasPrefix(strings.TrimLeft(line, " "), "```"):
			inFence = !inFence
		case inFence:
		case start < 0 && strings.TrimRight(line, " \t") == heading:
			start = off
		case start >= 0 && (strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ")):
			return start, off, true
		}
		off = next
	}
	if start < 0 {
		return 0, 0, false
	}
	return start, len(desc), true
}

// removeNestedExamples removes every remaining mention of
// tools.exec_command: an example code span together with its lead-in
// clause when there is one, otherwise the whole sentence (and the line, if
// nothing else is left on it).
func removeNestedExamples(desc string) string {
	for {
		i := strings.Index(desc, nestedExecCommand)
		if i < 0 {
			return desc
		}
		if s, e, ok := exampleClause(desc, i); ok {
			desc = desc[:s] + desc[e:]
			continue
		}
		s, e := sentenceAround(desc, i)
		desc = desc[:s] + desc[e:]
	}
}

// exampleClause finds the code span around position i and a lead-in right
// before it; it returns the byte range to delete. Removing the lead-in with
// the span keeps the sentence grammatical ("… on the global `tools`
// object, for example `await tools.exec_command(...)`." becomes "… on the
// global `tools` object.").
func exampleClause(desc string, i int) (start, end int, ok bool) {
	// Longer lead-ins first, so ", for example " wins over " for example ".
	leadIns := [...]string{
		", for example, ", " (for example, ", " (for example ", " (e.g., ", " (e.g. ",
		", for example ", ", e.g., ", ", e.g. ", ", such as ", ", like ",
		" for example ", " e.g. ", " such as ", " like ",
	}
	lineStart := strings.LastIndexByte(desc[:i], '\n') + 1
	open := strings.LastIndexByte(desc[lineStart:i], '`')
	if open < 0 {
		return 0, 0, false
	}
	open += lineStart
	closeRel := strings.IndexByte(desc[i:], '`')
	if closeRel < 0 || strings.IndexByte(desc[i:i+closeRel], '\n') >= 0 {
		return 0, 0, false
	}
	end = i + closeRel + 1
	for _, lead := range leadIns {
		if strings.HasSuffix(desc[lineStart:open], lead) {
			start = open - len(lead)
			if strings.HasPrefix(lead, " (") {
				if !strings.HasPrefix(desc[end:], ")") {
					continue
				}
				end++
			}
			return start, end, true
		}
	}
	return 0, 0, false
}

// sentenceAround returns the range of the sentence holding position i:
// from after the previous ". " on the line (or the line's text after a
// list marker) through the next ". " or the end of the line. If the line
// is left without text, the whole line goes, terminator included.
func sentenceAround(desc string, i int) (start, end int) {
	lineStart := strings.LastIndexByte(desc[:i], '\n') + 1
	lineEnd := len(desc)
	if nl := strings.IndexByte(desc[i:], '\n'); nl >= 0 {
		lineEnd = i + nl
	}
	textStart := lineStart + markerLen(desc[lineStart:lineEnd])
	start = textStart
	if p := strings.LastIndex(desc[textStart:i], ". "); p >= 0 {
		start = textStart + p + 2
	}
	end = lineEnd
	if p := strings.Index(desc[i:lineEnd], ". "); p >= 0 {
		end = i + p + 2
	}
	if end == lineEnd && start > textStart {
		start-- // keep the previous sentence's period, drop the space
	}
	if start == textStart && end == lineEnd {
		// Nothing else on the line: remove it with its terminator.
		if lineEnd < len(desc) {
			return lineStart, lineEnd + 1
		}
		return lineStart, lineEnd
	}
	return start, end
}

// markerLen is the length of a leading Markdown list marker ("- ", "* ",
// with indentation) on line, or 0.
func markerLen(line string) int {
	t := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		return len(line) - len(t) + 2
	}
	return 0
}

// commandToolName is the nested tool the carriers call.
const commandToolName = "exec_command"

// offersExecCommand reports an owner description that declares the nested
// exec_command tool the carriers call; a client that put another command
// tool there (shell_command) would receive carriers calling a tool it does
// not have. When it offers none, other names the command tool it seems to
// offer instead (a nested tool heading or a tools.NAME reference whose name
// holds "command" or "shell"), or is empty.
func offersExecCommand(desc string) (offers bool, other string) {
	for rest := desc; ; {
		i := strings.Index(rest, commandToolName)
		if i < 0 {
			break
		}
		end := i + len(commandToolName)
		if (i == 0 || !identByte(rest[i-1])) && (end == len(rest) || !identByte(rest[end])) {
			return true, ""
		}
		rest = rest[end:]
	}
	for _, name := range nestedToolNames(desc) {
		if strings.Contains(name, "command") || strings.Contains(name, "shell") {
			return false, name
		}
	}
	return false, ""
}

// nestedToolNames lists, in order, the names of the nested tools a
// description introduces with a ### `NAME` heading or mentions as
// tools.NAME.
func nestedToolNames(desc string) []string {
	var names []string
	for _, line := range strings.Split(desc, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimRight(line, " \t\r"), "### `"); ok && strings.HasSuffix(name, "`") {
			names = append(names, strings.TrimSuffix(name, "`"))
		}
	}
	for rest := desc; ; {
		i := strings.Index(rest, "tools.")
		if i < 0 {
			return names
		}
		rest = rest[i+len("tools."):]
		n := 0
		for n < len(rest) && identByte(rest[n]) {
			n++
		}
		if n > 0 {
			names = append(names, rest[:n])
		}
	}
}

// identByte reports a byte that can continue a JavaScript identifier.
func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
