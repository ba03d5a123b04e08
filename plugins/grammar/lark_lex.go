package grammar

import (
	"fmt"
	"strings"
)

// tokKind is the kind of one lexical token of a Lark grammar.
type tokKind uint8

const (
	tokName    tokKind = iota + 1 // rule or terminal name
	tokString                     // "…" (flag i allowed)
	tokRegex                      // /…/flags
	tokNumber                     // priorities, ~ repeats
	tokPunct                      // : | ( ) [ ] { } * + ? ~ , . .. -> ! %
	tokNewline                    // end of a physical line
)

type token struct {
	kind tokKind
	text string // the name, punctuation, number, string or regex body
	flag string // a string's or regex's flags
	line int
}

// lexLark splits a Lark grammar into tokens. Comments (// to the end of
// the line) are dropped; a string or regex that does not close on its line
// is a problem, and lexing goes on at the next line.
func lexLark(src string) ([]token, []Problem) {
	var toks []token
	var probs []Problem
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			toks = append(toks, token{kind: tokNewline, line: line})
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"':
			end, body, err := scanString(src, i)
			if err != "" {
				probs = append(probs, Problem{line, err})
				i = skipLine(src, i)
				continue
			}
			flag := ""
			if end < len(src) && src[end] == 'i' {
				flag, end = "i", end+1
			}
			toks = append(toks, token{kind: tokString, text: body, flag: flag, line: line})
			i = end
		case c == '/':
			end, body, ok := scanRegex(src, i)
			if !ok {
				probs = append(probs, Problem{line, "a /regex/ does not close on its line; end it with an unescaped /"})
				i = skipLine(src, i)
				continue
			}
			j := end
			for j < len(src) && strings.IndexByte("imslux", src[j]) >= 0 {
				j++
			}
			toks = append(toks, token{kind: tokRegex, text: body, flag: src[end:j], line: line})
			i = j
		case isNameStart(c):
			j := i + 1
			for j < len(src) && isNameByte(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tokName, text: src[i:j], line: line})
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			toks = append(toks, token{kind: tokNumber, text: src[i:j], line: line})
			i = j
		case strings.HasPrefix(src[i:], "->") || strings.HasPrefix(src[i:], ".."):
			toks = append(toks, token{kind: tokPunct, text: src[i : i+2], line: line})
			i += 2
		case strings.IndexByte(":|()[]{}*+?~,.!%-", c) >= 0:
			toks = append(toks, token{kind: tokPunct, text: src[i : i+1], line: line})
			i++
		default:
			probs = append(probs, Problem{line, fmt.Sprintf("unexpected character %q; Lark grammars hold names, \"strings\", /regexes/ and : | ( ) [ ] * + ? ~ ->", rune(c))})
			i = skipLine(src, i)
		}
	}
	return toks, probs
}

// scanString reads a "…" string starting at src[i]; it returns the offset
// after the closing quote and the body as written (escapes kept), or a
// problem.
func scanString(src string, i int) (end int, body, problem string) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if j+1 >= len(src) || src[j+1] == '\n' {
				return 0, "", "a string ends in a lone backslash; escape it as \\\\"
			}
			j++
		case '"':
			return j + 1, src[i+1 : j], ""
		case '\n':
			return 0, "", "a \"string\" does not close on its line; end it with an unescaped \""
		}
	}
	return 0, "", "a \"string\" does not close on its line; end it with an unescaped \""
}

// scanRegex reads a /…/ regex starting at src[i].
func scanRegex(src string, i int) (end int, body string, ok bool) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '/':
			return j + 1, src[i+1 : j], j > i+1
		case '\n':
			return 0, "", false
		}
	}
	return 0, "", false
}

func skipLine(src string, i int) int {
	for i < len(src) && src[i] != '\n' {
		i++
	}
	return i
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isNameByte(c byte) bool  { return isNameStart(c) || c >= '0' && c <= '9' }
