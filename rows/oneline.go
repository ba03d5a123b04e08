package rows

import "strings"

// The two ways a text is written on one line. A message a person reads as
// prose (a diagnostic, a rejection reason) takes OneLineSpaced; a text that
// must stay recoverable (an argument or a pattern quoted in a usage error)
// takes OneLineEscaped.

// OneLineSpaced writes s on one line with each row terminator (LF, CRLF or
// a lone CR, as Cut counts them) replaced by one space.
func OneLineSpaced(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// OneLineEscaped writes s on one line with each LF written as `\n` and
// each CR as `\r`, so a reader still sees where the breaks were.
func OneLineEscaped(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}
