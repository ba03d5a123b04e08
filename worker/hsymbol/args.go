//go:build linux

package hsymbol

import (
	"fmt"
	"go/scanner"
	"go/token"
	"hpatch-router/rows"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// request is a checked hsymbol command line.
type request struct {
	op     string // "def" or "refs"
	path   string // as the model wrote it
	line   int    // 1-based row
	hash   string
	symbol string
	nth    int // 1-based; 0 when not given
}

const usage = "usage: hsymbol def|refs PATH LINE:HASH SYMBOL [N]"

// parseArgs checks the shape of the command line (without the name).
func parseArgs(args []string) (request, error) {
	var r request
	if len(args) != 4 && len(args) != 5 {
		return r, fmt.Errorf("%s", usage)
	}
	r.op, r.path, r.symbol = args[0], args[1], args[3]
	if r.op != "def" && r.op != "refs" {
		return r, fmt.Errorf("unknown operation %q; %s", r.op, usage)
	}
	num, hash, ok := strings.Cut(args[2], ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || len(hash) != 4 || strings.Trim(hash, "0123456789abcdef") != "" {
		return r, fmt.Errorf("row %q is not LINE:HASH (e.g. 12:a3f0, as hread and hgrep print it)", args[2])
	}
	r.line, r.hash = n, hash
	if r.symbol == "" || strings.ContainsAny(r.symbol, " \t\r\n") {
		return r, fmt.Errorf("SYMBOL %q is not one token", r.symbol)
	}
	if len(args) == 5 {
		k, err := strconv.Atoi(args[4])
		if err != nil || k < 1 {
			return r, fmt.Errorf("N %q is not a positive occurrence number", args[4])
		}
		r.nth = k
	}
	return r, nil
}

// verifyRow returns the cited row's text if it still hashes the same.
func verifyRow(data []byte, r request) ([]byte, error) {
	fileRows := rows.Split(data)
	if r.line > len(fileRows) {
		return nil, fmt.Errorf("row %d:%s is stale: %s has %d lines; re-read it with hread", r.line, r.hash, r.path, len(fileRows))
	}
	row := fileRows[r.line-1]
	if got := rows.Hash(row.Text); got != r.hash {
		return nil, fmt.Errorf("row %d:%s is stale: line %d is now %s; re-read it with hread", r.line, r.hash, r.line, row.Cite())
	}
	return row.Text, nil
}

// occurrences returns the byte columns where symbol is a whole token of
// line in lang: Go through go/scanner, other languages through identifier
// boundaries outside strings and comments.
func occurrences(lang string, line []byte, symbol string) []int {
	if lang == "go" {
		return goOccurrences(line, symbol)
	}
	comment := "//"
	if lang == "python" {
		comment = "#"
	}
	var cols []int
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipString(line, i)
		case strings.HasPrefix(string(line[i:]), comment):
			return cols
		case isIdentByte(line, i):
			j := i
			for j < len(line) && isIdentByte(line, j) {
				_, size := utf8.DecodeRune(line[j:])
				j += size
			}
			if string(line[i:j]) == symbol {
				cols = append(cols, i)
			}
			i = j
		default:
			i++
		}
	}
	return cols
}

func isIdentByte(line []byte, i int) bool {
	r, _ := utf8.DecodeRune(line[i:])
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// skipString returns the index after the string literal starting at i (or
// the end of the line when it does not close on it).
func skipString(line []byte, i int) int {
	q := line[i]
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(line)
}

// goOccurrences scans line as Go tokens; identifiers equal to symbol count.
func goOccurrences(line []byte, symbol string) []int {
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(line))
	var s scanner.Scanner
	s.Init(f, line, func(token.Position, string) {}, 0)
	var cols []int
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return cols
		}
		if tok == token.IDENT && lit == symbol {
			cols = append(cols, f.Offset(pos))
		}
	}
}

// utf16Column converts a byte column of line into LSP's UTF-16 units.
func utf16Column(line []byte, col int) int {
	n := 0
	for _, r := range string(line[:col]) {
		n += utf16.RuneLen(r) // invalid bytes decode as U+FFFD: one unit
	}
	return n
}

// pick chooses the occurrence the request names.
func pick(cols []int, r request) (int, error) {
	switch {
	case len(cols) == 0:
		return 0, fmt.Errorf("%s does not occur as a token on row %d:%s", r.symbol, r.line, r.hash)
	case r.nth > len(cols):
		return 0, fmt.Errorf("%s occurs %d time(s) on row %d:%s; N=%d is out of range 1..%d", r.symbol, len(cols), r.line, r.hash, r.nth, len(cols))
	case r.nth > 0:
		return cols[r.nth-1], nil
	case len(cols) > 1:
		return 0, fmt.Errorf("%s occurs %d times on row %d:%s; add N (1..%d) to choose one: hsymbol %s %s %d:%s %s N",
			r.symbol, len(cols), r.line, r.hash, len(cols), r.op, r.path, r.line, r.hash, r.symbol)
	}
	return cols[0], nil
}
