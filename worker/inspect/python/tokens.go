package python

import (
	"strings"
	"unicode/utf8"

	"hpatch-router/worker/inspect/outline"
	"hpatch-router/worker/inspect/scan"
)

// The Python outline reads the file as Python's tokenizer does — strings
// (every prefix, triple quotes, f-string replacement fields with their
// nested strings), comments, brackets, backslash continuations — into
// logical lines, then follows the indentation the way tree-sitter's
// Python grammar does, so entries and their spans are the ones its
// syntax tree gives: a block ends before the first later line, code or
// comment, indented less than the block when the next code line is too
// (a trailing comment at the block's indentation stays in it), an
// indentation change without a ':' opening a block is no block, and a
// block opener whose next line is not indented deeper has an empty
// block. Outlined: imports (each module), module-level assignments to a
// plain name (UPPER_CASE ones as constants), classes with the functions
// their bodies define directly (methods), functions; decorated
// definitions span from their first decorator. parse_complete is false
// when a string or a bracket is not closed, brackets do not match, or a
// def or class header is malformed.

// pyToken is one token of a logical line: its kind and its bytes
// src[start:end].
type pyToken struct {
	kind       byte  // 'n' name, 'o' operator, 's' string, '1' number
	start, end int32 // 12 bytes a token: a dense 8 MiB file has millions
}

// pyLine is one logical line of code.
type pyLine struct {
	first, last int // rows (0-based) of its first and last token
	indent      int
	tokens      []pyToken
	opener      bool // ends with ':' at bracket depth 0: a block follows
	decorator   bool // starts with '@'
	unclosed    bool // the file ended inside its brackets: not outlined
}

// pyComment is a line holding only a comment.
type pyComment struct {
	row, indent int
}

// pyEvent is a logical line or a comment line, in file order.
type pyEvent struct {
	line    *pyLine
	comment pyComment
}

// pyScanner tokenizes Python source into events.
type pyScanner struct {
	src    string
	lines  *outline.Lines
	i      int
	events []pyEvent
	broken bool // an unterminated string, unmatched or unclosed bracket
	// trailing holds the comment lines a logical line was continued onto.
	trailing   []pyComment
	recoveries int
}

// column is the indentation of the row holding offset off, up to off.
func (s *pyScanner) column(off int) int {
	start := off
	for start > 0 && s.src[start-1] != '\n' && s.src[start-1] != '\r' {
		start--
	}
	save := s.i
	s.i = start
	n := s.indentation()
	s.i = save
	return n
}

// Outline outlines Python source; lines indexes data's rows. It never
// fails: what does not parse leaves ParseComplete false.
func Outline(data []byte, lines *outline.Lines) (outline.Result, error) {
	s := &pyScanner{src: string(data), lines: lines}
	s.scan()
	b := pyBlocks(s.events)
	w := &pyOutline{src: s.src, lines: lines, res: outline.Result{Kind: "source", ParseComplete: !s.broken && !b.broken}}
	for _, st := range b.top {
		w.statement(st)
	}
	return w.res, nil
}

func (s *pyScanner) row(off int) int { return s.lines.LineOf(off) - 1 }

// scan splits the source into logical lines and comment lines.
func (s *pyScanner) scan() {
	if strings.HasPrefix(s.src, "\ufeff") {
		s.i = len("\ufeff") // a byte order mark is no code
	}
	for s.i < len(s.src) {
		start := s.i
		indent := s.indentation()
		switch c := scan.At(s.src, s.i); {
		case s.i >= len(s.src):
		case c == '\n' || c == '\r':
			s.newline()
		case c == '#':
			s.events = append(s.events, pyEvent{comment: pyComment{row: s.row(s.i), indent: indent}})
			s.skipComment()
		case c == '\\' && s.continuation():
			// an empty line continued: nothing
		default:
			l := s.logicalLine(indent)
			if len(l.tokens) > 0 {
				s.events = append(s.events, pyEvent{line: l})
			}
			for _, c := range s.trailing {
				s.events = append(s.events, pyEvent{comment: c})
			}
			s.trailing = s.trailing[:0]
		}
		if s.i == start {
			s.i++ // a byte nothing above reads (never: every branch advances)
		}
	}
}

// indentation consumes leading whitespace and returns its width the way
// tree-sitter's Python scanner counts it: a space 1, a tab 8, a form feed
// resets.
func (s *pyScanner) indentation() int {
	n := 0
	for ; s.i < len(s.src); s.i++ {
		switch s.src[s.i] {
		case ' ':
			n++
		case '\t':
			n += 8
		case '\f':
			n = 0
		default:
			return n
		}
	}
	return n
}

func (s *pyScanner) newline() {
	if s.src[s.i] == '\r' && scan.At(s.src, s.i+1) == '\n' {
		s.i++
	}
	s.i++
}

func (s *pyScanner) skipComment() { s.i = scan.LineEnd(s.src, s.i) }

// continuation consumes a backslash that ends a line and the line break.
func (s *pyScanner) continuation() bool {
	if c := scan.At(s.src, s.i+1); c != '\n' && c != '\r' {
		return false
	}
	s.i++
	s.newline()
	return true
}

// logicalLine reads tokens until a line break outside brackets.
func (s *pyScanner) logicalLine(indent int) *pyLine {
	l := &pyLine{indent: indent, first: s.row(s.i)}
	var stack []byte // open brackets
	// suspect is the first line inside the brackets indented no deeper
	// than the statement: where it ends if the brackets never close.
	suspect, suspectTokens := -1, 0
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			s.i++
		case c == '\n' || c == '\r':
			s.newline()
			if len(stack) == 0 {
				l.finish(s.src)
				return l
			}
			if s.statementAhead(indent) {
				// A bracket left open before a line that can only start a
				// statement: the rest is not inside it (as a parser
				// recovering from the error reads it).
				s.broken = true
				l.finish(s.src)
				return l
			}
			if suspect < 0 && s.lineStartsShallow(indent) {
				suspect, suspectTokens = s.i, len(l.tokens)
			}
		case c == '#':
			if row := s.row(s.i); len(l.tokens) > 0 && row > l.last && len(stack) == 0 {
				// A comment alone on a line a backslash continued onto:
				// a comment line after the statement.
				s.trailing = append(s.trailing, pyComment{row: row, indent: s.column(s.i)})
			}
			s.skipComment()
		case c == '\\':
			if !s.continuation() {
				s.i++ // a stray backslash
				s.broken = true
			}
		case isPyNameStart(c):
			start := s.i
			for s.i < len(s.src) && isPyNameByte(s.src[s.i]) {
				s.i++
			}
			if q := scan.At(s.src, s.i); (q == '"' || q == '\'') && isStringPrefix(s.src[start:s.i]) {
				quote := s.i
				s.i = start
				l.add(s, 's', start, s.string(quote))
				continue
			}
			l.add(s, 'n', start, s.i)
		case c == '"' || c == '\'':
			l.add(s, 's', s.i, s.string(s.i))
		case c >= '0' && c <= '9' || c == '.' && scan.IsDigit(scan.At(s.src, s.i+1)):
			start := s.i
			for s.i < len(s.src) && (isPyNameByte(s.src[s.i]) || s.src[s.i] == '.') {
				s.i++
			}
			l.add(s, '1', start, s.i)
		default:
			start := s.i
			s.i += pyOperator(s.src[s.i:])
			switch c {
			case '(', '[', '{':
				stack = append(stack, c)
			case ')', ']', '}':
				if len(stack) == 0 || stack[len(stack)-1] != scan.OpenerOf(c) {
					s.broken = true
				} else {
					stack = stack[:len(stack)-1]
				}
			}
			l.add(s, 'o', start, s.i)
		}
	}
	if len(stack) > 0 {
		s.broken = true
		if suspect >= 0 && s.recoveries < maxPyRecoveries {
			// The file ended inside brackets: they were never closed, so
			// the statement ends before the first line indented no deeper
			// than itself, and the scan resumes there.
			s.recoveries++
			s.i = suspect
			l.tokens = l.tokens[:suspectTokens]
			l.last = s.row(int(l.tokens[len(l.tokens)-1].end) - 1)
		} else {
			l.unclosed = true
		}
	}
	l.finish(s.src)
	return l
}

// maxPyRecoveries bounds how often a scan goes back after reaching the
// end inside brackets, so a file of unclosed brackets costs a bounded
// number of passes.
const maxPyRecoveries = 16

// lineStartsShallow reports whether the line at s.i is indented no deeper
// than indent and does not start with a closing bracket.
func (s *pyScanner) lineStartsShallow(indent int) bool {
	save := s.i
	ind := s.indentation()
	c := scan.At(s.src, s.i)
	s.i = save
	return ind <= indent && c != ')' && c != ']' && c != '}' && c != '\n' && c != '\r' && c != '#' && c != 0
}

// statementAhead reports whether the line at s.i, inside brackets opened
// by a logical line indented indent, starts at no deeper indentation with
// a word that cannot stand inside brackets.
func (s *pyScanner) statementAhead(indent int) bool {
	save := s.i
	ind := s.indentation()
	j := s.i
	s.i = save
	if ind > indent {
		return false
	}
	end := j
	for end < len(s.src) && isPyNameByte(s.src[end]) {
		end++
	}
	return pyStatementWord(s.src[j:end])
}

// pyStatementWord reports the words that start a statement and cannot
// stand inside brackets.
func pyStatementWord(w string) bool {
	switch w {
	case "def", "class", "import", "return", "pass", "raise", "del", "global", "nonlocal", "assert",
		"break", "continue", "try", "while", "with", "elif", "except", "finally":
		return true
	}
	return false
}

func (l *pyLine) add(s *pyScanner, kind byte, start, end int) {
	l.tokens = append(l.tokens, pyToken{kind, int32(start), int32(end)})
	l.last = s.row(max(start, end-1))
}

func (l *pyLine) finish(src string) {
	if n := len(l.tokens); n > 0 {
		t := l.tokens[n-1]
		l.opener = t.kind == 'o' && src[t.start:t.end] == ":"
		l.decorator = src[l.tokens[0].start:l.tokens[0].end] == "@"
	}
}

// string reads a string literal whose quotes start at s.src[q] (after
// its prefix, which starts at s.i) and returns where it ends.
func (s *pyScanner) string(q int) int {
	prefix := s.src[s.i:q]
	format := containsFold(prefix, 'f') || containsFold(prefix, 't')
	s.i = q
	return s.stringBody(format)
}

// stringBody reads a string literal at s.i (its opening quote) and
// returns the offset after it; an unterminated one marks the file broken.
// A raw prefix changes nothing here: a backslash keeps the next character,
// a quote among them, from ending the literal in a raw string too.
func (s *pyScanner) stringBody(format bool) int {
	quote := s.src[s.i]
	triple := scan.At(s.src, s.i+1) == quote && scan.At(s.src, s.i+2) == quote
	if !triple && !format {
		end, closed := scan.Quoted(s.src, s.i)
		s.i, s.broken = end, s.broken || !closed
		return s.i
	}
	if triple {
		s.i += 3
	} else {
		s.i++
	}
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\\':
			// An escaped character, or in a raw string one the backslash
			// keeps from ending it; a backslash-newline continues the line.
			// A brace after it is still a brace (f'\{{' is a backslash and
			// an escaped brace).
			s.i++
			if c := scan.At(s.src, s.i); !format || c != '{' && c != '}' {
				s.i++
			}
			if scan.At(s.src, s.i-1) == '\r' && scan.At(s.src, s.i) == '\n' {
				s.i++
			}
		case c == quote && (!triple || scan.At(s.src, s.i+1) == quote && scan.At(s.src, s.i+2) == quote):
			if triple {
				s.i += 3
			} else {
				s.i++
			}
			return s.i
		case (c == '\n' || c == '\r') && !triple:
			s.broken = true
			return s.i
		case format && c == '{':
			if scan.At(s.src, s.i+1) == '{' {
				s.i += 2
				continue
			}
			s.replacementField()
		default:
			s.i++
		}
	}
	s.broken = true
	if s.i > len(s.src) {
		s.i = len(s.src)
	}
	return s.i
}

// replacementField skips an f-string's {expression!conversion:format}
// from its '{': brackets and strings inside the expression, and the
// format spec after a ':' at the field's own level, whose nested fields
// are fields again and whose quotes are text.
func (s *pyScanner) replacementField() {
	s.i++ // '{'
	depth := 0
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '(' || c == '[' || c == '{':
			depth++
			s.i++
		case c == ')' || c == ']' || c == '}':
			s.i++
			if depth == 0 {
				return
			}
			depth--
		case c == ':' && depth == 0:
			s.formatSpec()
			return
		case c == '#': // a comment inside a triple-quoted f-string's field
			s.skipComment()
		case c == '"' || c == '\'':
			p := s.src[s.i-prefixLen(s.src, s.i) : s.i]
			s.stringBody(containsFold(p, 'f') || containsFold(p, 't'))
		default:
			s.i++
		}
	}
}

// formatSpec skips a replacement field's format spec from its ':' to the
// field's closing '}'.
func (s *pyScanner) formatSpec() {
	for s.i++; s.i < len(s.src); {
		switch s.src[s.i] {
		case '{':
			s.replacementField()
		case '}':
			s.i++
			return
		case '\n', '\r':
			return // the string's own reading decides
		default:
			s.i++
		}
	}
}

// prefixLen is the length of the string prefix before the quote at
// src[q].
func prefixLen(src string, q int) int {
	n := 0
	for n < 3 && q-n > 0 && isPyNameByte(src[q-n-1]) {
		n++
	}
	for n > 0 && !isStringPrefix(src[q-n:q]) {
		n--
	}
	if q-n > 0 && isPyNameByte(src[q-n-1]) {
		return 0 // part of a longer name: not a prefix
	}
	return n
}

func isPyNameStart(c byte) bool { return c == '_' || scan.IsASCIILetter(c) || c >= 0x80 }
func isPyNameByte(c byte) bool  { return isPyNameStart(c) || scan.IsDigit(c) }

// isStringPrefix reports a string prefix: up to three of r, b, u, f, t in
// any case, no letter twice.
func isStringPrefix(p string) bool {
	if len(p) > 3 {
		return false
	}
	seen := 0
	for i := 0; i < len(p); i++ {
		k := strings.IndexByte("rbuft", p[i]|0x20)
		if k < 0 || seen&(1<<k) != 0 {
			return false
		}
		seen |= 1 << k
	}
	return true
}

func containsFold(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i]|0x20 == c {
			return true
		}
	}
	return false
}

// pyOperator is the length of the operator at s[0].
func pyOperator(s string) int {
	for _, op := range []string{"**=", "//=", ">>=", "<<=", "...", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=", ":=", "->", "**", "//", "<<", ">>"} {
		if strings.HasPrefix(s, op) {
			return len(op)
		}
	}
	_, n := utf8.DecodeRuneInString(s)
	return max(n, 1)
}
