package shebang

import "strings"

// Line terminators: REQ-SHELL-001 treats LF, CRLF and a lone CR as one
// terminator each, so "#!python3\r\nbody" has the body "body" and not
// "\nbody".

// nextLine returns the logical line that starts at off (without its
// terminator) and the offset just past its complete terminator.
func nextLine(s string, off int) (text string, next int) {
	rest := s[off:]
	i := strings.IndexAny(rest, "\r\n")
	if i < 0 {
		return rest, len(s)
	}
	n := 1
	if rest[i] == '\r' && i+1 < len(rest) && rest[i+1] == '\n' {
		n = 2
	}
	return rest[:i], off + i + n
}

// lineAt is the 1-based line number of byte offset off.
func lineAt(s string, off int) int {
	num := 1
	for i := 0; i < off && i < len(s); i++ {
		switch s[i] {
		case '\n':
			num++
		case '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				num++
			}
		}
	}
	return num
}

// countLines is the number of logical lines; a final terminator ends the
// last line rather than starting an empty one, and "" has no lines.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := lineAt(s, len(s))
	if last := s[len(s)-1]; last == '\n' || last == '\r' {
		n--
	}
	return n
}

// trimBlank trims only ASCII spaces and tabs, the one trimming the
// requirement allows around shebang and directive lines.
func trimBlank(s string) string { return strings.Trim(s, " \t") }

// fields splits at runs of ASCII spaces and tabs.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' })
}

// chompTerminator removes one final line terminator (LF, CRLF or CR).
func chompTerminator(s string) string {
	switch {
	case strings.HasSuffix(s, "\r\n"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "\n"), strings.HasSuffix(s, "\r"):
		return s[:len(s)-1]
	}
	return s
}
