package router

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// hexDigits are lowercase, as serde_json (Codex) writes \u00XX escapes.
const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal using the escaping
// serde_json uses: only `"`, `\` and control characters are escaped, and
// everything else, including non-ASCII UTF-8 and `<>&`, is copied as is.
// Matching Codex's encoder means a description we re-encode keeps the exact
// bytes of every part we did not edit, and the output is identical for
// identical input (the upstream prompt cache depends on that).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		// Skip eight bytes at a time while none needs escaping: the bytes
		// to escape are exactly where a string scan stops.
		for i+8 <= len(s) && stringStop(le64(s[i:])) == 0 {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// decodeJSONString decodes the JSON string literal raw (quotes included),
// which the scanner has validated, the way gjson's Result.String does: the
// standard escapes, \uXXXX with surrogate pairs joined and a lone surrogate
// as U+FFFD, every other byte copied as is. A literal without escapes is
// returned as a substring of raw. Runs between escapes are copied whole,
// which makes a long description with an escape per line several times
// faster to decode than gjson's byte-at-a-time copy.
func decodeJSONString(raw string) string {
	s := raw[1 : len(raw)-1]
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i >= 0 {
		b = append(b, s[:i]...)
		s = s[i:]
		n := 2
		switch c := s[1]; c {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hexRune(s[2:6])
			n = 6
			if utf16.IsSurrogate(r) && r < 0xdc00 && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if r2 := hexRune(s[8:12]); r2 >= 0xdc00 && r2 < 0xe000 {
					r = utf16.DecodeRune(r, r2)
					n = 12
				}
			}
			b = utf8.AppendRune(b, r)
		default: // '"', '\\', '/'
			b = append(b, c)
		}
		s = s[n:]
		i = strings.IndexByte(s, '\\')
	}
	return string(append(b, s...))
}

// hexRune reads four validated hex digits.
func hexRune(h string) rune {
	var r rune
	for i := 0; i < 4; i++ {
		c := h[i]
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// le64 is the little-endian word of s's first eight bytes.
func le64(s string) uint64 {
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
