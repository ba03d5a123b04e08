package shebang

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A JavaScript tokenizer, enough to tell Code Mode JavaScript from shell
// text that mentions it (recover.go). It follows the lexical grammar of
// ECMAScript: identifiers, numbers, string and template literals (with
// ${…} substitutions), regular expression literals where an operand may
// start, comments, and punctuators by longest match. A character that no
// JavaScript token can start (a lone `\`, `#` outside a private name, `@`,
// a raw line break inside a string) ends the scan: such text is not
// JavaScript. It never evaluates anything.

type jsKind uint8

const (
	jsIdent    jsKind = iota + 1 // identifiers and keywords
	jsNumber                     // numeric literals
	jsString                     // '…' and "…"; text is the decoded value
	jsTemplate                   // `…` without substitutions; text is its content
	jsTmplHead                   // `…${ ; text is the whole template (see jsTemplateText)
	jsTmplMid                    // }…${
	jsTmplTail                   // }…`
	jsRegex                      // /…/flags
	jsPunct                      // punctuators
)

type jsToken struct {
	kind jsKind
	text string
	nl   bool // a line terminator comes before it
}

// Punctuators by length; scanPunct takes the longest that matches.
const (
	jsPunct4 = " >>>= "
	jsPunct3 = " ... === !== **= <<= >>= >>> &&= ||= ??= "
	jsPunct2 = " => == != <= >= && || ?? ?. ++ -- += -= *= /= %= &= |= ^= ** << >> "
	jsPunct1 = "{}()[];,<>+-*/%&|^!~?:=."
)

// jsPunctAt is the longest punctuator at the start of rest, or "".
func jsPunctAt(rest string) string {
	for _, set := range [...]string{jsPunct4, jsPunct3, jsPunct2} {
		n := strings.IndexByte(set[1:], ' ') // every entry of a set has this length
		if len(rest) >= n && strings.Contains(set, " "+rest[:n]+" ") {
			if rest[:n] == "?." && len(rest) > 2 && isDigit(rest[2]) {
				continue // a ? b ?.5 : c is a conditional
			}
			return rest[:n]
		}
	}
	if rest != "" && strings.IndexByte(jsPunct1, rest[0]) >= 0 {
		return rest[:1]
	}
	return ""
}

// maxJSDepth bounds nested template substitutions.
const maxJSDepth = 256

// scanJS tokenizes src; ok is false when src is not JavaScript text.
func scanJS(src string) (toks []jsToken, ok bool) {
	s := &jsScanner{src: src}
	for {
		nl := s.skipSpace()
		if s.err {
			return nil, false
		}
		if s.pos >= len(src) {
			return s.toks, len(s.tmpl) == 0
		}
		if !s.token(nl) {
			return nil, false
		}
	}
}

type jsScanner struct {
	src  string
	pos  int
	toks []jsToken
	err  bool
	// tmpl holds, per open template substitution, the brace depth inside
	// it and where its template started; a `}` at depth 0 resumes the
	// template.
	tmpl []tmplFrame
}

type tmplFrame struct{ braces, start int }

// skipSpace skips white space and comments and reports a line terminator.
func (s *jsScanner) skipSpace() (nl bool) {
	for s.pos < len(s.src) {
		r, n := utf8.DecodeRuneInString(s.src[s.pos:])
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			nl = true
		case r == ' ' || r == '\t' || r == '\v' || r == '\f' || r == '\uFEFF' || unicode.Is(unicode.Zs, r):
		case strings.HasPrefix(s.src[s.pos:], "//"):
			end := strings.IndexAny(s.src[s.pos:], "\r\n\u2028\u2029")
			if end < 0 {
				s.pos = len(s.src)
				return nl
			}
			s.pos += end
			continue
		case strings.HasPrefix(s.src[s.pos:], "/*"):
			end := strings.Index(s.src[s.pos+2:], "*/")
			if end < 0 {
				s.err = true
				return nl
			}
			nl = nl || strings.ContainsAny(s.src[s.pos:s.pos+2+end], "\r\n\u2028\u2029")
			s.pos += end + 4
			continue
		default:
			return nl
		}
		s.pos += n
	}
	return nl
}

func (s *jsScanner) emit(kind jsKind, text string, nl bool) {
	s.toks = append(s.toks, jsToken{kind: kind, text: text, nl: nl})
}

// token scans one token at s.pos.
func (s *jsScanner) token(nl bool) bool {
	c := s.src[s.pos]
	r, _ := utf8.DecodeRuneInString(s.src[s.pos:])
	switch {
	case c == '"' || c == '\'':
		v, end, ok := jsStringLiteral(s.src, s.pos)
		if !ok {
			return false
		}
		s.emit(jsString, v, nl)
		s.pos = end
	case c == '`':
		return s.template(s.pos, s.pos+1, nl)
	case c == '}' && len(s.tmpl) > 0 && s.tmpl[len(s.tmpl)-1].braces == 0:
		f := s.tmpl[len(s.tmpl)-1]
		s.tmpl = s.tmpl[:len(s.tmpl)-1]
		return s.template(f.start, s.pos+1, nl)
	case c >= '0' && c <= '9' || c == '.' && s.pos+1 < len(s.src) && isDigit(s.src[s.pos+1]):
		s.emit(jsNumber, s.number(), nl)
	case isIdentStart(r) || c == '#' && s.pos+1 < len(s.src) && isIdentStart(rune(s.src[s.pos+1])):
		start := s.pos
		s.pos += utf8.RuneLen(r)
		for s.pos < len(s.src) {
			r, n := utf8.DecodeRuneInString(s.src[s.pos:])
			if !isIdentPart(r) {
				break
			}
			s.pos += n
		}
		s.emit(jsIdent, s.src[start:s.pos], nl)
	case c == '/' && s.regexAllowed():
		end, ok := jsRegexEnd(s.src, s.pos)
		if !ok {
			return false
		}
		s.emit(jsRegex, s.src[s.pos:end], nl)
		s.pos = end
	default:
		return s.punct(nl)
	}
	return true
}

// number scans a numeric literal: identifier characters (validNumber
// judges them), one decimal point before any exponent, and an exponent's
// sign.
func (s *jsScanner) number() string {
	start, dot, exp := s.pos, s.src[s.pos] == '.', false
	radix := len(s.src) > start+1 && s.src[start] == '0' && strings.IndexByte("xXoObB", s.src[start+1]) >= 0
	for s.pos++; s.pos < len(s.src); s.pos++ {
		b := s.src[s.pos]
		switch {
		case b == '.' && !dot && !exp && !radix && s.src[s.pos-1] != 'n' && s.src[s.pos-1] != '_':
			dot = true
		case (b == 'e' || b == 'E') && !radix:
			exp = true
		case (b == '+' || b == '-') && !radix && (s.src[s.pos-1] == 'e' || s.src[s.pos-1] == 'E'):
		case isIdentByte(b):
		default:
			return s.src[start:s.pos]
		}
	}
	return s.src[start:]
}

func (s *jsScanner) punct(nl bool) bool {
	p := jsPunctAt(s.src[s.pos:])
	if p == "" {
		return false
	}
	if len(s.tmpl) > 0 {
		switch p {
		case "{":
			s.tmpl[len(s.tmpl)-1].braces++
		case "}":
			s.tmpl[len(s.tmpl)-1].braces--
		}
	}
	s.emit(jsPunct, p, nl)
	s.pos += len(p)
	return true
}

// template scans template characters from pos (just after a backtick or
// a substitution's closing brace) to the closing backtick or the next
// `${`. start is the template's opening backtick.
func (s *jsScanner) template(start, pos int, nl bool) bool {
	head := s.src[pos-1] == '`'
	for i := pos; i < len(s.src); i++ {
		switch {
		case s.src[i] == '\\':
			i++
		case s.src[i] == '`':
			kind := jsTmplTail
			if head {
				kind = jsTemplate
			}
			s.emit(kind, jsTemplateText(s.src[start+1:i]), nl)
			s.pos = i + 1
			return true
		case strings.HasPrefix(s.src[i:], "${"):
			if len(s.tmpl) >= maxJSDepth {
				return false
			}
			kind := jsTmplMid
			if head {
				kind = jsTmplHead
			}
			s.emit(kind, "", nl)
			s.tmpl = append(s.tmpl, tmplFrame{start: start})
			s.pos = i + 2
			return true
		}
	}
	return false
}

// regexAllowed: a `/` starts a regular expression where an operand may
// start, i.e. not after an operand or a closing `)`/`]`.
func (s *jsScanner) regexAllowed() bool {
	if len(s.toks) == 0 {
		return true
	}
	t := s.toks[len(s.toks)-1]
	switch t.kind {
	case jsIdent:
		return isPrefixKeyword(t.text) || t.text == "else" || t.text == "do" || t.text == "case" || t.text == "of" || t.text == "in" || t.text == "instanceof"
	case jsPunct:
		return t.text != ")" && t.text != "]"
	case jsTmplHead, jsTmplMid:
		return true
	}
	return false
}

// jsStringLiteral decodes the string literal at src[pos]; end is just
// past its closing quote. A raw line break inside ends it unsuccessfully.
func jsStringLiteral(src string, pos int) (value string, end int, ok bool) {
	q := src[pos]
	var b strings.Builder
	for i := pos + 1; i < len(src); i++ {
		switch c := src[i]; {
		case c == q:
			return b.String(), i + 1, true
		case c == '\n' || c == '\r':
			return "", 0, false
		case c == '\\' && i+1 < len(src):
			n := jsEscape(&b, src[i+1:])
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// jsTemplateText is the content of a template with escapes decoded and
// substitutions kept as written (they read like shell parameters).
func jsTemplateText(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			i += jsEscape(&b, raw[i+1:])
			continue
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// jsEscape decodes the escape whose text (after the backslash) starts
// rest into b and returns how many bytes of rest it used.
func jsEscape(b *strings.Builder, rest string) int {
	switch rest[0] {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case '0':
		b.WriteByte(0)
	case '\r':
		if len(rest) > 1 && rest[1] == '\n' {
			return 2 // line continuation
		}
	case '\n':
	case 'x', 'u':
		digits := rest[1:min(len(rest), 5)]
		if rest[0] == 'x' {
			digits = rest[1:min(len(rest), 3)]
		} else if strings.HasPrefix(rest, "u{") {
			if end := strings.IndexByte(rest, '}'); end > 0 {
				digits = rest[2:end]
				if v, err := strconv.ParseUint(digits, 16, 32); err == nil {
					b.WriteRune(rune(v))
					return end + 1
				}
			}
		}
		if v, err := strconv.ParseUint(digits, 16, 32); err == nil {
			b.WriteRune(rune(v))
			return 1 + len(digits)
		}
		b.WriteByte(rest[0])
	default:
		_, n := utf8.DecodeRuneInString(rest)
		b.WriteString(rest[:n])
		return n
	}
	return 1
}

// jsRegexEnd is the end of the regular expression literal at src[pos].
// Beyond the lexical grammar it checks what a pattern needs to compile
// that shell text often lacks: groups that balance, and a quantifier that
// follows something.
func jsRegexEnd(src string, pos int) (int, bool) {
	class, groups, atom := false, 0, false
	for i := pos + 1; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n' || c == '\r':
			return 0, false
		case c == '\\':
			if i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r') {
				return 0, false
			}
			i++
			if !class && i < len(src) && (src[i] == 'b' || src[i] == 'B') {
				atom = false // an assertion: nothing to repeat
				continue
			}
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			groups++
			atom = false
			continue
		case c == ')':
			if groups--; groups < 0 {
				return 0, false
			}
		case c == '|' || c == '^' || c == '$':
			atom = false
			continue
		case (c == '*' || c == '+' || c == '?') && !atom:
			if c != '?' || src[i-1] != '(' {
				return 0, false
			}
		case c == '/':
			flags := i + 1
			for i++; i < len(src) && isIdentByte(src[i]); i++ {
				if f := src[i]; strings.IndexByte("dgimsuyv", f) < 0 || strings.IndexByte(src[flags:i], f) >= 0 {
					return 0, false
				}
			}
			return i, groups == 0 && flags > pos+2
		}
		atom = true
	}
	return 0, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(r rune) bool {
	return r == '$' || r == '_' || r < utf8.RuneSelf && isIdentByte(byte(r)) && !isDigit(byte(r)) ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.Is(unicode.Nl, r))
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || r < utf8.RuneSelf && isDigit(byte(r)) || r == '\u200C' || r == '\u200D' ||
		r >= utf8.RuneSelf && unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc)
}
