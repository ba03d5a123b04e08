package scan

// At is s[i], or 0 past the end: a lookahead that needs no bounds check.
func At(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// IsDigit reports an ASCII digit.
func IsDigit(c byte) bool { return c >= '0' && c <= '9' }

// IsASCIILetter reports an ASCII letter.
func IsASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// OpenerOf is the opening bracket a closing one (')', ']' or '}')
// matches.
func OpenerOf(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

// LineEnd is the index of the first LF or CR at or after i, or len(s):
// where a line comment starting before it ends.
func LineEnd[T string | []byte](s T, i int) int {
	for i < len(s) && s[i] != '\n' && s[i] != '\r' {
		i++
	}
	return i
}

// Quoted reads a one-line string literal whose opening quote is s[i] and
// returns the index after its closing quote. A backslash escapes the byte
// after it (a backslash before CRLF escapes the pair: the string goes on
// on the next line). closed is false when the string is not terminated:
// end is then the line break that ended it, or len(s).
func Quoted(s string, i int) (end int, closed bool) {
	q := s[i]
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
			if At(s, i) == '\r' && At(s, i+1) == '\n' {
				i++
			}
		case q:
			return i + 1, true
		case '\n', '\r':
			return i, false
		}
	}
	return len(s), false
}
