package jsonline

// hexDigits are lowercase, as serde_json (Codex) writes \u00XX escapes.
const hexDigits = "0123456789abcdef"

// AppendSerdeString appends s as a JSON string literal using the escaping
// serde_json uses: only `"`, `\` and control characters are escaped, and
// everything else, including non-ASCII UTF-8 and `<>&`, is copied as is.
// Matching Codex's encoder means a description the router re-encodes
// keeps the exact bytes of every part it did not edit, and the output is
// identical for identical input (the upstream prompt cache depends on
// that). The router's own error bodies use it too, so Codex reads them as
// it reads the API's. Unlike String it writes invalid UTF-8 and U+2028 as
// they are: its input is text Codex already encoded once.
func AppendSerdeString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
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
