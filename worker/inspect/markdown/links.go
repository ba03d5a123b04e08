package markdown

import (
	"strings"

	"hpatch-router/rows"
	"hpatch-router/worker/inspect/scan"
)

// Link syntax shared by the block pass (link reference definitions) and
// the inline pass (links, images and their destinations).

// linkDefinition parses a link reference definition at the start of
// lines (one paragraph's lines): `[label]: destination "title"`, the
// title optional and on the same or the next line. It returns the
// normalized label and the number of lines it takes (0: none).
func linkDefinition(lines []string) (string, int) {
	text := strings.Join(lines[:min(len(lines), 8)], "\n")
	end := labelEnd(text, 0)
	if end < 0 || scan.At(text, end+1) != ':' {
		return "", 0
	}
	label := normalizeLabel(text[1:end])
	if label == "" {
		return "", 0
	}
	i := skipSpaceOneNewline(text, end+2)
	dest, ok := linkDestination(text, i)
	if !ok || dest == i {
		return "", 0
	}
	// Title, then only whitespace to the end of its line; without a valid
	// title the definition ends with the destination's line.
	afterDest := dest
	if t := skipSpaceOneNewline(text, dest); t > dest {
		if te, ok := linkTitle(text, t); ok && restOfLineBlank(text, te) {
			return label, rows.At(text, te)
		}
	}
	if !restOfLineBlank(text, afterDest) {
		return "", 0
	}
	return label, rows.At(text, afterDest)
}

func restOfLineBlank(text string, i int) bool {
	j := strings.IndexByte(text[i:], '\n')
	if j < 0 {
		j = len(text) - i
	}
	return strings.Trim(text[i:i+j], " \t") == ""
}

// skipSpaceOneNewline skips spaces and tabs and at most one line break.
func skipSpaceOneNewline(s string, i int) int {
	nl := false
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f':
		case s[i] == '\n' && !nl:
			nl = true
		default:
			return i
		}
		i++
	}
	return i
}

// labelEnd returns the index of the ']' closing a link label that opens
// at s[i] ('['), or -1: no unescaped brackets inside, at most 999 bytes.
func labelEnd(s string, i int) int {
	if scan.At(s, i) != '[' {
		return -1
	}
	for j := i + 1; j < len(s) && j-i <= 1000; j++ {
		switch s[j] {
		case '\\':
			j++
		case '[':
			return -1
		case ']':
			return j
		}
	}
	return -1
}

// normalizeLabel folds case and collapses whitespace, as label matching
// does; "" when the label is blank.
func normalizeLabel(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// linkDestination parses a destination at s[i]: <…> without line breaks,
// or a run without spaces or control characters whose parentheses
// balance. It returns the index after it.
func linkDestination(s string, i int) (int, bool) {
	if scan.At(s, i) == '<' {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '\n', '<':
				return 0, false
			case '>':
				return j + 1, true
			}
		}
		return 0, false
	}
	depth, j := 0, i
	for ; j < len(s); j++ {
		c := s[j]
		if strings.IndexByte(" \t\n\v\f\r", c) >= 0 {
			return j, true // unbalanced parentheses end at a space too, as goldmark reads them
		}
		switch c {
		case '\\':
			if j+1 < len(s) && isASCIIPunct(s[j+1]) {
				j++
			}
		case '(':
			depth++
			if depth > 32 {
				return 0, false
			}
		case ')':
			if depth == 0 {
				return j, j > i
			}
			depth--
		}
	}
	return j, depth == 0
}

// linkTitle parses a title at s[i]: "…", '…' or (…). It returns the index
// after it.
func linkTitle(s string, i int) (int, bool) {
	open := scan.At(s, i)
	closer := open
	switch open {
	case '"', '\'':
	case '(':
		closer = ')'
	default:
		return 0, false
	}
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case s[j] == closer:
			return j + 1, true
		case open == '(' && s[j] == '(':
			return 0, false
		case s[j] == '\n' && j+1 < len(s) && s[j+1] == '\n':
			return 0, false
		}
	}
	return 0, false
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
