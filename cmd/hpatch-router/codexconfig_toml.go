package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file reads the subset of TOML that Codex's config.toml uses, well
// enough to find model_provider, profile, [profiles.X] and
// [model_providers.X] keys. It is read-only and hand-written so the doctor
// needs no TOML module: tables, dotted and quoted keys, basic and literal
// strings (single- and multi-line), booleans, numbers, dates, arrays and
// inline tables are parsed; values other than strings and booleans are
// kept as their raw text. Arrays of tables ([[x]]) are parsed and ignored.

// tomlValue is one scalar value.
type tomlValue struct {
	str    string // the string value, or the raw text of a number/date/array
	isStr  bool
	isBool bool
	b      bool
}

// tomlDoc maps full dotted key paths (joined with keySep) to values.
type tomlDoc map[string]tomlValue

const keySep = "\x1f"

func tomlKey(parts ...string) string { return strings.Join(parts, keySep) }

// str returns the string at path, if it is a string.
func (d tomlDoc) str(parts ...string) (string, bool) {
	v, ok := d[tomlKey(parts...)]
	return v.str, ok && v.isStr
}

// tables lists the names X that have some key under prefix.X.
func (d tomlDoc) tables(prefix string) []string {
	seen := map[string]bool{}
	var out []string
	for k := range d {
		parts := strings.Split(k, keySep)
		if len(parts) >= 3 && parts[0] == prefix && !seen[parts[1]] {
			seen[parts[1]] = true
			out = append(out, parts[1])
		}
	}
	return out
}

type tomlError struct {
	line int
	msg  string
}

func (e *tomlError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

type tomlParser struct {
	s    string
	i    int
	line int
	doc  tomlDoc
}

// parseTOML parses src; errors carry the line.
func parseTOML(src string) (tomlDoc, error) {
	if !utf8.ValidString(src) {
		return nil, &tomlError{1, "not UTF-8"}
	}
	p := &tomlParser{s: strings.TrimPrefix(src, "\ufeff"), line: 1, doc: tomlDoc{}}
	if err := p.document(); err != nil {
		return nil, err
	}
	return p.doc, nil
}

func (p *tomlParser) errf(format string, a ...any) error {
	return &tomlError{p.line, fmt.Sprintf(format, a...)}
}

func (p *tomlParser) eof() bool { return p.i >= len(p.s) }

func (p *tomlParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

// skipSpace skips blanks; with newlines, also line breaks and comments.
func (p *tomlParser) skipSpace(newlines bool) {
	for !p.eof() {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t':
			p.i++
		case c == '#':
			for !p.eof() && p.s[p.i] != '\n' {
				p.i++
			}
		case newlines && (c == '\n' || c == '\r'):
			if c == '\n' {
				p.line++
			}
			p.i++
		default:
			return
		}
	}
}

// endOfLine requires only blanks or a comment before the next line.
func (p *tomlParser) endOfLine() error {
	p.skipSpace(false)
	switch {
	case p.eof():
		return nil
	case p.s[p.i] == '\n':
		p.line++
		p.i++
		return nil
	case strings.HasPrefix(p.s[p.i:], "\r\n"):
		p.line++
		p.i += 2
		return nil
	}
	return p.errf("unexpected %q after a value", p.s[p.i])
}

func (p *tomlParser) document() error {
	var table []string
	ignore := false // inside an array of tables
	for {
		p.skipSpace(true)
		if p.eof() {
			return nil
		}
		if p.peek() == '[' {
			arrayTable := strings.HasPrefix(p.s[p.i:], "[[")
			if arrayTable {
				p.i += 2
			} else {
				p.i++
			}
			p.skipSpace(false)
			key, err := p.key()
			if err != nil {
				return err
			}
			closer := "]"
			if arrayTable {
				closer = "]]"
			}
			p.skipSpace(false)
			if !strings.HasPrefix(p.s[p.i:], closer) {
				return p.errf("table header is not closed with %s", closer)
			}
			p.i += len(closer)
			table, ignore = key, arrayTable
			if err := p.endOfLine(); err != nil {
				return err
			}
			continue
		}
		key, err := p.key()
		if err != nil {
			return err
		}
		p.skipSpace(false)
		if p.peek() != '=' {
			return p.errf("expected = after key %q", strings.Join(key, "."))
		}
		p.i++
		p.skipSpace(false)
		prefix := append(append([]string{}, table...), key...)
		if ignore {
			prefix = nil
		}
		if err := p.value(prefix); err != nil {
			return err
		}
		if err := p.endOfLine(); err != nil {
			return err
		}
	}
}

// key parses a dotted key of bare and quoted parts.
func (p *tomlParser) key() ([]string, error) {
	var parts []string
	for {
		p.skipSpace(false)
		var part string
		switch c := p.peek(); {
		case c == '"':
			s, err := p.basicString()
			if err != nil {
				return nil, err
			}
			part = s
		case c == '\'':
			s, err := p.literalString()
			if err != nil {
				return nil, err
			}
			part = s
		default:
			start := p.i
			for !p.eof() && isBareKeyChar(p.s[p.i]) {
				p.i++
			}
			if start == p.i {
				return nil, p.errf("expected a key")
			}
			part = p.s[start:p.i]
		}
		parts = append(parts, part)
		p.skipSpace(false)
		if p.peek() != '.' {
			return parts, nil
		}
		p.i++
	}
}

func isBareKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value parses one value and records it under path (nil: discard).
func (p *tomlParser) value(path []string) error {
	set := func(v tomlValue) {
		if path != nil {
			p.doc[tomlKey(path...)] = v
		}
	}
	switch c := p.peek(); {
	case c == '"':
		s, err := p.basicString()
		set(tomlValue{str: s, isStr: true})
		return err
	case c == '\'':
		s, err := p.literalString()
		set(tomlValue{str: s, isStr: true})
		return err
	case c == '[':
		start := p.i
		p.i++
		for {
			p.skipSpace(true)
			if p.peek() == ']' {
				p.i++
				set(tomlValue{str: p.s[start:p.i]})
				return nil
			}
			if err := p.value(nil); err != nil {
				return err
			}
			p.skipSpace(true)
			if p.peek() == ',' {
				p.i++
			} else if p.peek() != ']' {
				return p.errf("expected , or ] in an array")
			}
		}
	case c == '{':
		p.i++
		for {
			p.skipSpace(false)
			if p.peek() == '}' {
				p.i++
				return nil
			}
			key, err := p.key()
			if err != nil {
				return err
			}
			p.skipSpace(false)
			if p.peek() != '=' {
				return p.errf("expected = in an inline table")
			}
			p.i++
			p.skipSpace(false)
			var sub []string
			if path != nil {
				sub = append(append([]string{}, path...), key...)
			}
			if err := p.value(sub); err != nil {
				return err
			}
			p.skipSpace(false)
			if p.peek() == ',' {
				p.i++
			} else if p.peek() != '}' {
				return p.errf("expected , or } in an inline table")
			}
		}
	}
	start := p.i
	for !p.eof() && !strings.ContainsRune(" \t\r\n#,]}", rune(p.s[p.i])) {
		p.i++
	}
	raw := p.s[start:p.i]
	switch raw {
	case "":
		return p.errf("expected a value")
	case "true", "false":
		set(tomlValue{isBool: true, b: raw == "true", str: raw})
	default:
		set(tomlValue{str: raw})
	}
	return nil
}

// basicString parses "…" or """…""" with escapes.
func (p *tomlParser) basicString() (string, error) {
	multi := strings.HasPrefix(p.s[p.i:], `"""`)
	if multi {
		p.i += 3
		p.skipLeadingNewline()
	} else {
		p.i++
	}
	var b strings.Builder
	for {
		if p.eof() {
			return "", p.errf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case multi && strings.HasPrefix(p.s[p.i:], `"""`):
			p.i += 3
			// Up to two more quotes belong to the content.
			for n := 0; n < 2 && p.peek() == '"'; n++ {
				b.WriteByte('"')
				p.i++
			}
			return b.String(), nil
		case !multi && c == '"':
			p.i++
			return b.String(), nil
		case c == '\n':
			if !multi {
				return "", p.errf("newline in a string")
			}
			p.line++
			b.WriteByte(c)
			p.i++
		case c == '\\':
			if err := p.escape(&b, multi); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

func (p *tomlParser) escape(b *strings.Builder, multi bool) error {
	p.i++
	if p.eof() {
		return p.errf("unterminated escape")
	}
	c := p.s[p.i]
	p.i++
	simple := map[byte]byte{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', '"': '"', '\\': '\\', 'e': 0x1b}
	if r, ok := simple[c]; ok {
		b.WriteByte(r)
		return nil
	}
	switch c {
	case 'u', 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		if p.i+n > len(p.s) {
			return p.errf("short \\%c escape", c)
		}
		v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) {
			return p.errf("bad \\%c escape", c)
		}
		b.WriteRune(rune(v))
		p.i += n
		return nil
	case ' ', '\t', '\r', '\n':
		if !multi {
			break
		}
		// Line-ending backslash: trim the break and leading whitespace.
		p.i--
		for !p.eof() && strings.ContainsRune(" \t\r\n", rune(p.s[p.i])) {
			if p.s[p.i] == '\n' {
				p.line++
			}
			p.i++
		}
		return nil
	}
	return p.errf("unknown escape \\%c", c)
}

// literalString parses '…' or ”'…”' without escapes.
func (p *tomlParser) literalString() (string, error) {
	if strings.HasPrefix(p.s[p.i:], "'''") {
		p.i += 3
		p.skipLeadingNewline()
		rest := p.s[p.i:]
		end := strings.Index(rest, "'''")
		if end < 0 {
			return "", p.errf("unterminated string")
		}
		// Up to two more quotes belong to the content.
		for n := 0; n < 2 && end+3 < len(rest) && rest[end+3] == '\''; n++ {
			end++
		}
		s := p.s[p.i : p.i+end]
		p.line += strings.Count(s, "\n")
		p.i += end + 3
		return s, nil
	}
	p.i++
	end := strings.IndexAny(p.s[p.i:], "'\n")
	if end < 0 || p.s[p.i+end] != '\'' {
		return "", p.errf("unterminated string")
	}
	s := p.s[p.i : p.i+end]
	p.i += end + 1
	return s, nil
}

func (p *tomlParser) skipLeadingNewline() {
	if strings.HasPrefix(p.s[p.i:], "\r\n") {
		p.i += 2
		p.line++
	} else if p.peek() == '\n' {
		p.i++
		p.line++
	}
}
