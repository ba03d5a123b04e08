package jsts

import (
	"strings"

	"hpatch-router/worker/inspect/scan"
)

// The JavaScript/TypeScript outline reads the file in two steps: a
// tokenizer (this file) and a statement reader (statements.go). The tokenizer
// knows what can hide a brace: strings, comments, template literals with
// their ${…} substitutions, regular expression literals (a '/' where an
// expression can start), and JSX elements in .js, .jsx and .tsx files
// (a '<' where an expression can start, followed by a tag name or '>').
// A template literal, a regular expression and a JSX element each become
// one token, so the statement reader only sees balanced brackets.

// jsToken is one token: kind, bytes src[start:end], and whether a line
// break precedes it (automatic semicolon insertion needs it).
type jsToken struct {
	kind       byte // 'n' name or keyword, 'o' punctuator, 's' string, 't' template, 'r' regex, '1' number, 'j' JSX
	nl         bool
	start, end int32 // 12 bytes a token: a dense 8 MiB file has millions
}

type jsScanner struct {
	src     string
	i       int
	jsx     bool // the language has JSX (javascript, tsx)
	toks    []jsToken
	prev    jsToken // the last token, for '/' and '<'
	hasPrev bool
	nl      bool // a line break since the last token
	broken  bool // something unterminated or unmatched
	// jsxBudget bounds the bytes read by JSX attempts that turned out not
	// to be JSX, so a file of '<' cannot cost quadratic time.
	jsxBudget int
}

// scanScript tokenizes src; jsx says whether '<' may start a JSX element.
func scanScript(src string, jsx bool) *jsScanner {
	s := &jsScanner{src: src, jsx: jsx, jsxBudget: 4*len(src) + 4096}
	// A token takes at least a byte: room for the most there can be, so a
	// dense file never copies millions of tokens to grow (pages never
	// written to are never touched).
	s.toks = make([]jsToken, 0, len(src)+1)
	if strings.HasPrefix(src, "\ufeff") {
		s.i = len("\ufeff")
	}
	if strings.HasPrefix(src[s.i:], "#!") {
		s.skipLine()
	}
	for {
		t, ok := s.next()
		if !ok {
			return s
		}
		s.toks = append(s.toks, t)
	}
}

func (s *jsScanner) skipLine() { s.i = scan.LineEnd(s.src, s.i) }

// space skips whitespace and comments, noting line breaks.
func (s *jsScanner) space() {
	for s.i < len(s.src) {
		switch c := s.src[s.i]; {
		case c == '\n' || c == '\r':
			s.nl = true
			s.i++
		case c == ' ' || c == '\t' || c == '\f' || c == '\v':
			s.i++
		case c == '/' && scan.At(s.src, s.i+1) == '/':
			s.skipLine()
		case c == '/' && scan.At(s.src, s.i+1) == '*':
			end := strings.Index(s.src[s.i+2:], "*/")
			if end < 0 {
				s.broken = true
				s.i = len(s.src)
				return
			}
			if strings.ContainsAny(s.src[s.i:s.i+2+end], "\n\r") {
				s.nl = true
			}
			s.i += end + 4
		case c == 0xe2 && (strings.HasPrefix(s.src[s.i:], "\u2028") || strings.HasPrefix(s.src[s.i:], "\u2029")):
			s.nl = true
			s.i += 3
		case c >= 0x80 && strings.HasPrefix(s.src[s.i:], "\u00a0"):
			s.i += len("\u00a0")
		case c >= 0x80 && strings.HasPrefix(s.src[s.i:], "\ufeff"):
			s.i += len("\ufeff")
		default:
			return
		}
	}
}

// next reads one token; ok is false at the end.
func (s *jsScanner) next() (jsToken, bool) {
	s.nl = false
	s.space()
	if s.i >= len(s.src) {
		return jsToken{}, false
	}
	start := s.i
	c := s.src[s.i]
	t := jsToken{start: int32(start), nl: s.nl}
	switch {
	case isJSNameStart(c) || c == '#' && isJSNameStart(scan.At(s.src, s.i+1)):
		s.i++
		for s.i < len(s.src) && isJSNameByte(s.src[s.i]) {
			s.i++
		}
		t.kind = 'n'
	case scan.IsDigit(c) || c == '.' && scan.IsDigit(scan.At(s.src, s.i+1)):
		for s.i < len(s.src) && (isJSNameByte(s.src[s.i]) || s.src[s.i] == '.' ||
			(s.src[s.i] == '+' || s.src[s.i] == '-') && s.src[s.i-1]|0x20 == 'e' && !strings.ContainsAny(s.src[start:s.i], "xX")) {
			s.i++
		}
		t.kind = '1'
	case c == '"' || c == '\'':
		end, closed := scan.Quoted(s.src, s.i)
		s.i, s.broken = end, s.broken || !closed
		t.kind = 's'
	case c == '`':
		s.template()
		t.kind = 't'
	case c == '/' && s.expressionStart():
		s.regex()
		t.kind = 'r'
	case c == '<' && s.jsx && s.expressionStart() && s.element():
		t.kind = 'j'
	default:
		s.i += jsPunctuator(s.src[s.i:])
		t.kind = 'o'
	}
	s.i = min(s.i, len(s.src)) // an escape at the very end reads past it
	t.end = int32(s.i)
	s.prev, s.hasPrev = t, true
	return t, true
}

// expressionStart reports whether an expression can start here, from the
// token before: what decides between a regular expression and a
// division, and whether '<' opens a JSX element.
func (s *jsScanner) expressionStart() bool {
	if !s.hasPrev {
		return true
	}
	p := s.src[s.prev.start:s.prev.end]
	switch s.prev.kind {
	case 'n':
		return jsExpressionKeyword(p)
	case 'o':
		switch p {
		case ")", "]", "}", "++", "--":
			return false
		}
		return true
	}
	return false
}

// jsExpressionKeyword reports the words an expression can follow.
func jsExpressionKeyword(w string) bool {
	switch w {
	case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do",
		"else", "yield", "await", "extends", "default":
		return true
	}
	return false
}

// template reads a template literal from its backquote, substitutions
// included.
func (s *jsScanner) template() {
	for s.i++; s.i < len(s.src); {
		switch s.src[s.i] {
		case '\\':
			s.i += 2
		case '`':
			s.i++
			return
		case '$':
			if scan.At(s.src, s.i+1) == '{' {
				s.i += 2
				s.nested('}')
				continue
			}
			s.i++
		default:
			s.i++
		}
	}
	s.broken = true
	s.i = len(s.src)
}

// nested reads tokens up to the unmatched closer (a substitution's or a
// JSX expression's '}') and discards them; s.i ends after the closer.
func (s *jsScanner) nested(closer byte) {
	saved, savedHas, savedNL := s.prev, s.hasPrev, s.nl
	s.hasPrev = false // an expression starts here
	depth := 0
	for {
		t, ok := s.next()
		if !ok {
			s.broken = true
			break
		}
		if t.kind != 'o' || t.end-t.start != 1 {
			continue
		}
		switch s.src[t.start] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				if s.src[t.start] != closer {
					s.broken = true
				}
				s.prev, s.hasPrev, s.nl = saved, savedHas, savedNL
				return
			}
			depth--
		}
	}
	s.prev, s.hasPrev, s.nl = saved, savedHas, savedNL
}

// regex reads a regular expression literal and its flags.
func (s *jsScanner) regex() {
	class := false
	for s.i++; s.i < len(s.src); s.i++ {
		switch s.src[s.i] {
		case '\\':
			s.i++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				s.i++
				for s.i < len(s.src) && isJSNameByte(s.src[s.i]) {
					s.i++
				}
				return
			}
		case '\n', '\r':
			s.broken = true
			return
		}
	}
	s.broken = true
}

// element reads a JSX element or fragment at '<'; false (nothing read)
// when what follows is not one.
func (s *jsScanner) element() bool {
	if s.jsxBudget <= 0 {
		return false
	}
	start, broken := s.i, s.broken
	ok := s.jsxElement()
	if !ok {
		s.jsxBudget -= s.i - start
		s.i, s.broken = start, broken
	}
	return ok
}

// jsxElement reads one element from '<': its opening tag, children and
// closing tag.
func (s *jsScanner) jsxElement() bool {
	s.i++ // '<'
	s.jsxSpace()
	name := s.jsxName()
	if name == "" && scan.At(s.src, s.i) != '>' {
		return false
	}
	if scan.At(s.src, s.i) == '<' {
		return false // a generic "<T<…": not JSX
	}
	if selfClosing, ok := s.jsxAttributes(); !ok {
		return false
	} else if selfClosing {
		return true
	}
	return s.jsxChildren()
}

// jsxAttributes reads attributes up to '>' or '/>'.
func (s *jsScanner) jsxAttributes() (selfClosing, ok bool) {
	for {
		s.jsxSpace()
		switch c := scan.At(s.src, s.i); {
		case c == '>':
			s.i++
			return false, true
		case c == '/' && scan.At(s.src, s.i+1) == '>':
			s.i += 2
			return true, true
		case c == '{':
			s.i++
			s.nested('}')
		case isJSNameStart(c):
			s.jsxName()
			s.jsxSpace()
			if scan.At(s.src, s.i) != '=' {
				continue
			}
			s.i++
			s.jsxSpace()
			if !s.jsxValue() {
				return false, false
			}
		default:
			return false, false
		}
	}
}

// jsxValue reads an attribute value: a string, {expression} or element.
func (s *jsScanner) jsxValue() bool {
	switch c := scan.At(s.src, s.i); c {
	case '"', '\'':
		end := strings.IndexByte(s.src[s.i+1:], c)
		if end < 0 {
			return false
		}
		s.i += end + 2
		return true
	case '{':
		s.i++
		s.nested('}')
		return true
	case '<':
		return s.jsxElement()
	}
	return false
}

// jsxChildren reads text, {expressions} and elements up to the closing
// tag of the element whose opening tag was just read.
func (s *jsScanner) jsxChildren() bool {
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case '{':
			s.i++
			s.nested('}')
		case '<':
			if scan.At(s.src, s.i+1) == '/' {
				s.i += 2
				s.jsxSpace()
				s.jsxName()
				s.jsxSpace()
				if scan.At(s.src, s.i) != '>' {
					return false
				}
				s.i++
				return true
			}
			if !s.jsxElement() {
				return false
			}
		default:
			s.i++
		}
	}
	s.broken = true
	return true // unterminated: the rest of the file is the element
}

// jsxName reads an element or attribute name (member and namespace
// names included).
func (s *jsScanner) jsxName() string {
	start := s.i
	for s.i < len(s.src) && (isJSNameByte(s.src[s.i]) || strings.IndexByte(".:-", s.src[s.i]) >= 0) {
		s.i++
	}
	return s.src[start:s.i]
}

func (s *jsScanner) jsxSpace() {
	for s.i < len(s.src) && strings.IndexByte(" \t\r\n", s.src[s.i]) >= 0 {
		s.i++
	}
}

func isJSNameStart(c byte) bool {
	return c == '_' || c == '$' || scan.IsASCIILetter(c) || c >= 0x80 || c == '\\'
}
func isJSNameByte(c byte) bool { return isJSNameStart(c) || scan.IsDigit(c) }

// jsPunctuator is the length of the punctuator at s[0] (the longest that
// fits: ">>>=", "...", "=>", …; ">" and ">>" stay apart for generics).
func jsPunctuator(s string) int {
	var cands []string
	switch s[0] {
	case '>':
		cands = []string{">>>=", ">>=", ">>>", ">="}
	case '<':
		cands = []string{"<<=", "<=", "<<"}
	case '=':
		cands = []string{"===", "=>", "=="}
	case '!':
		cands = []string{"!==", "!="}
	case '*':
		cands = []string{"**=", "*=", "**"}
	case '&':
		cands = []string{"&&=", "&&", "&="}
	case '|':
		cands = []string{"||=", "||", "|="}
	case '?':
		if strings.HasPrefix(s, "?.") && !scan.IsDigit(scan.At(s, 2)) {
			return 2
		}
		cands = []string{"??=", "??"}
	case '.':
		cands = []string{"..."}
	case '+':
		cands = []string{"++", "+="}
	case '-':
		cands = []string{"--", "-="}
	case '/':
		cands = []string{"/="}
	case '%':
		cands = []string{"%="}
	case '^':
		cands = []string{"^="}
	}
	for _, p := range cands {
		if strings.HasPrefix(s, p) {
			return len(p)
		}
	}
	return 1
}
