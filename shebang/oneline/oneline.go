package oneline

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EscapeOption is the helper option that says the body (the last argv
// value) is in the escape form. It comes right after the word shell.
const EscapeOption = "-e"

// Command renders `shell [-e] FIELDS… BODY` on one physical line. The body
// is escaped (and -e given) only when it holds a byte a line cannot show.
// It returns an error when a field is empty, starts with "-" (it would be
// read as a helper option) or holds an unshowable byte.
func Command(fields []string, body string) (string, error) {
	if len(fields) == 0 {
		return "", errors.New("no interpreter")
	}
	for _, f := range fields {
		if !Showable(f) {
			return "", errors.New("interpreter field " + Quote(Escape(f)) + " holds a control byte or an invisible character")
		}
	}
	if fields[0] == "" || fields[0][0] == '-' {
		return "", errors.New("the interpreter must be named first, not an option")
	}
	var b strings.Builder
	b.Grow(len(body) + len(body)/8 + 64)
	b.WriteString("shell")
	if !Showable(body) {
		b.WriteString(" " + EscapeOption)
		body = Escape(body)
	}
	for _, f := range fields {
		b.WriteByte(' ')
		writeQuoted(&b, f)
	}
	b.WriteByte(' ')
	writeQuoted(&b, body)
	return b.String(), nil
}

// Quote renders one value as a word every POSIX shell reads back as
// exactly v. It does not check that v is showable: a value holding a line
// terminator still round-trips, but not on one line.
func Quote(v string) string {
	var b strings.Builder
	writeQuoted(&b, v)
	return b.String()
}

func writeQuoted(b *strings.Builder, v string) {
	if bare(v) {
		b.WriteString(v)
		return
	}
	if v == "" {
		b.WriteString("''")
		return
	}
	for len(v) > 0 {
		i := strings.IndexByte(v, '\'')
		if i < 0 {
			i = len(v)
		}
		if i > 0 {
			b.WriteByte('\'')
			b.WriteString(v[:i])
			b.WriteByte('\'')
		}
		if i < len(v) {
			b.WriteString(`\'`)
			i++
		}
		v = v[i:]
	}
}

// bare reports a nonempty value made only of [A-Za-z0-9_./-]: no shell
// gives any of these bytes a meaning in an argument.
func bare(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-') {
			return false
		}
	}
	return true
}

// Showable reports whether s can stand on one physical line as it is: no
// LF, CR, other C0 control but TAB, DEL, or invisible rune. Bytes that are
// not valid UTF-8 are not showable either.
func Showable(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unshowableASCII(c) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if invisible(r, n) {
			return false
		}
		i += n
	}
	return true
}

func unshowableASCII(c byte) bool { return c < ' ' && c != '\t' || c == 0x7f }

// invisible is a non-ASCII rune a reader cannot see or that moves text
// around (unicode.IsPrint refuses it), or an invalid byte (n == 1).
func invisible(r rune, n int) bool {
	return r == utf8.RuneError && n == 1 || !unicode.IsPrint(r)
}

// Escape writes s in the helper's escape form: \\ for a backslash, \n and
// \r for the line terminators, \xHH (lowercase) for every byte of another
// unshowable character, everything else as it is. The result is showable.
func Escape(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\\':
				b.WriteString(`\\`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case unshowableASCII(c):
				writeHex(&b, c)
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if invisible(r, n) {
			for j := i; j < i+n; j++ {
				writeHex(&b, s[j])
			}
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

func writeHex(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(hexDigits[c>>4])
	b.WriteByte(hexDigits[c&0xf])
}

// Unescape decodes the escape form. Only what Escape writes is accepted:
// \\, \n, \r and \x with two lowercase hex digits; any other backslash
// sequence is an error, so one body has exactly one escaped spelling.
func Unescape(s string) (string, error) {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s, nil
	}
	out := make([]byte, 0, len(s))
	for ; i >= 0; i = strings.IndexByte(s, '\\') {
		out = append(out, s[:i]...)
		if i+1 >= len(s) {
			return "", errors.New("escaped body ends in a lone backslash")
		}
		switch s[i+1] {
		case '\\':
			out = append(out, '\\')
			s = s[i+2:]
		case 'n':
			out = append(out, '\n')
			s = s[i+2:]
		case 'r':
			out = append(out, '\r')
			s = s[i+2:]
		case 'x':
			if i+4 > len(s) {
				return "", errors.New("escaped body has a \\x without two hex digits")
			}
			hi, lo := unhex(s[i+2]), unhex(s[i+3])
			if hi < 0 || lo < 0 {
				return "", errors.New("escaped body has a \\x without two lowercase hex digits")
			}
			out = append(out, byte(hi<<4|lo))
			s = s[i+4:]
		default:
			return "", errors.New(`escaped body has a backslash that does not start \\, \n, \r or \xHH`)
		}
	}
	return string(append(out, s...)), nil
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// ParseArgs is the helper's reading of `shell [-e] FIELDS… BODY` (args are
// the argv after argv[0]): the interpreter fields and the exact body,
// decoded when -e was given. It errors when no interpreter and body are
// given or the escape form is malformed.
func ParseArgs(args []string) (fields []string, body string, err error) {
	escaped := len(args) > 0 && args[0] == EscapeOption
	if escaped {
		args = args[1:]
	}
	if len(args) < 2 {
		return nil, "", errors.New("want an interpreter and a script body: shell [-e] INTERPRETER [OPTIONS…] BODY (the router writes this command)")
	}
	fields, body = args[:len(args)-1], args[len(args)-1]
	if escaped {
		if body, err = Unescape(body); err != nil {
			return nil, "", err
		}
	}
	return fields, body, nil
}
