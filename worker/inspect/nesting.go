package inspect

import (
	"bytes"
	"strings"

	"hpatch-router/rows"
	"hpatch-router/worker/inspect/scan"
)

// nesting measures how deep data nests for lang, in one linear pass and
// without a parser, so a file too deep for the parsers is refused in
// milliseconds (their cost grows with the square of the depth). It
// returns the deepest level and the 1-based row where it is first reached.
//
// Source languages count open brackets outside strings and comments, and
// JSX elements in JavaScript and TSX (a string that interpolates, like a
// JavaScript template, counts as a string); brackets inside strings and
// comments count a quarter. What the scan cannot see runs into the outline
// process's time limit.
// Markdown counts, per line, the block containers that open it (block
// quotes, list items, two columns of indentation) plus the brackets ( and
// [ still open in the paragraph; YAML front matter is scanned the same way. JSON
// is not scanned: its outline skips deep values without recursion.
func nesting(lang string, data []byte) (depth, row int) {
	switch lang {
	case "go", "python", "javascript", "typescript", "tsx":
		depth, row = codeNesting(lang, data)
		// Brackets in strings and comments count a quarter level: a
		// parser may read as code what the scan took for a string (a
		// quote in a regular expression or in JSX text), and no real file
		// comes near four times the limit inside its strings.
		if raw, rawRow := bracketNesting(data); raw/4 > depth {
			return raw / 4, rawRow
		}
		return depth, row
	case "markdown":
		return markdownNesting(data)
	}
	return 0, 1
}

// depthMeter tracks the current and deepest level and the row reached.
type depthMeter struct {
	level, deepest, row, deepestRow int
}

func (m *depthMeter) open() {
	m.level++
	m.reach(m.level)
}

// reach records a level reached on the current row.
func (m *depthMeter) reach(level int) {
	if level > m.deepest {
		m.deepest, m.deepestRow = level, m.row
	}
}

func (m *depthMeter) close() {
	if m.level > 0 {
		m.level--
	}
}

// newline counts a row end at data[i] (LF, CRLF, lone CR) and returns the
// index of its last byte.
func (m *depthMeter) newline(data []byte, i int) int {
	m.row++
	if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
		return i + 1
	}
	return i
}

func codeNesting(lang string, data []byte) (int, int) {
	m := depthMeter{row: 1, deepestRow: 1}
	lineComment := []byte("//")
	if lang == "python" {
		lineComment = []byte("#")
	}
	jsx := lang == "tsx" || lang == "javascript" // the grammars that parse JSX elements
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '\n' || c == '\r':
			i = m.newline(data, i)
		case bytes.HasPrefix(data[i:], lineComment):
			i = scan.LineEnd(data, i) - 1
		case lang != "python" && bytes.HasPrefix(data[i:], []byte("/*")):
			i = m.skipTo(data, i+2, "*/")
		case lang == "python" && (bytes.HasPrefix(data[i:], []byte(`"""`)) || bytes.HasPrefix(data[i:], []byte("'''"))):
			i = m.skipTo(data, i+3, string(data[i:i+3]))
		case c == '"' || c == '\'' || c == '`':
			i = m.skipString(data, i, lang)
		case c == '(' || c == '[' || c == '{' || jsx && jsxOpen(data, i):
			m.open()
		case jsx && (bytes.HasPrefix(data[i:], []byte("</")) || bytes.HasPrefix(data[i:], []byte("/>"))):
			m.close()
		case c == ')' || c == ']' || c == '}':
			m.close()
		}
	}
	return m.deepest, m.deepestRow
}

// jsxOpen reports whether the < at i opens a JSX element or fragment: a
// letter or > follows, and no identifier or closing bracket precedes it on
// its line (that would be a type argument or a comparison: f<T>(), a<b).
// An element right after a keyword (return <div>) is missed, one level.
func jsxOpen(data []byte, i int) bool {
	if data[i] != '<' || i+1 >= len(data) || !(scan.IsASCIILetter(data[i+1]) || data[i+1] == '>') {
		return false
	}
	j := i - 1
	for j >= 0 && (data[j] == ' ' || data[j] == '\t') {
		j--
	}
	return j < 0 || !(scan.IsASCIILetter(data[j]) || data[j] >= '0' && data[j] <= '9' || strings.IndexByte("_$)]", data[j]) >= 0)
}

// bracketNesting counts ( [ { everywhere, strings and comments included.
func bracketNesting(data []byte) (int, int) {
	m := depthMeter{row: 1, deepestRow: 1}
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\n', '\r':
			i = m.newline(data, i)
		case '(', '[', '{':
			m.open()
		case ')', ']', '}':
			m.close()
		}
	}
	return m.deepest, m.deepestRow
}

// skipTo returns the index of the last byte of the first end at or after
// from (or the last index of data), counting the rows it passes.
func (m *depthMeter) skipTo(data []byte, from int, end string) int {
	for i := from; i < len(data); i++ {
		if bytes.HasPrefix(data[i:], []byte(end)) {
			return i + len(end) - 1
		}
		if data[i] == '\n' || data[i] == '\r' {
			i = m.newline(data, i)
		}
	}
	return len(data) - 1
}

// skipString returns the index of the closing quote of the string opening
// at i. Backslashes escape (except in Go raw strings); only backquoted
// strings (Go raw strings, JavaScript templates) span lines.
func (m *depthMeter) skipString(data []byte, i int, lang string) int {
	q := data[i]
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == q:
			return j
		case c == '\\' && !(q == '`' && lang == "go"):
			j++
		case c == '\n' || c == '\r':
			if q != '`' {
				return j - 1 // an unclosed string ends with its line
			}
			j = m.newline(data, j)
		}
	}
	return len(data) - 1
}

// markdownNesting counts, for each line, the containers opening it plus
// the brackets open in its paragraph (a blank line closes them all).
func markdownNesting(data []byte) (int, int) {
	m := depthMeter{deepestRow: 1}
	for r := range rows.All(data) {
		m.row = r.Num
		if len(bytes.TrimSpace(r.Text)) == 0 {
			m.level = 0
		}
		c := containers(r.Text)
		m.reach(c + m.level)
		for _, b := range r.Text {
			switch b {
			case '(', '[':
				m.level++
				m.reach(c + m.level)
			case ')', ']':
				m.close()
			}
		}
	}
	return m.deepest, m.deepestRow
}

// containers counts the block containers a Markdown line opens: each
// block quote marker, each list item marker, and every two columns of
// indentation (a nested list item is indented by its parent's marker).
func containers(line []byte) int {
	n, col := 0, 0
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ':
			col++
			i++
		case c == '\t':
			col += 4 - col%4
			i++
		case c == '>':
			n++
			i++
			if i < len(line) && line[i] == ' ' { // part of the marker
				i++
			}
		case (c == '-' || c == '+' || c == '*') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			n++
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && (line[j+1] == ' ' || line[j+1] == '\t') {
				n++
				i = j + 2
				continue
			}
			return n + col/2
		default:
			return n + col/2
		}
	}
	return n + col/2
}
