package rows

import (
	"crypto/sha256"
	"encoding/hex"
	"iter"
	"strconv"
)

// HashLen is the length of a row hash: 4 hex digits.
const HashLen = 4

// Row is one row of a text.
type Row struct {
	Num  int    // 1-based row number
	Text []byte // the row without its terminator
	Term []byte // "\n", "\r\n", "\r", or empty for a final unterminated row
}

// Hash is the row hash of text: the first 2 bytes of its SHA-256 as 4
// lowercase hex digits.
func Hash(text []byte) string { return string(AppendHash(nil, text)) }

// AppendHash appends the row hash of text to dst, for callers that print
// many rows without a string per row (hread).
func AppendHash(dst, text []byte) []byte {
	sum := sha256.Sum256(text)
	return hex.AppendEncode(dst, sum[:2])
}

// Cite renders the LINE:HASH position of r.
func (r Row) Cite() string {
	return strconv.Itoa(r.Num) + ":" + Hash(r.Text)
}

// Cut splits the first row off s: its text, its terminator (empty when s
// has none) and the rest of s after it.
func Cut[S ~string | ~[]byte](s S) (text, term, rest S) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			return s[:i], s[i : i+1], s[i+1:]
		case '\r':
			end := i + 1
			if end < len(s) && s[end] == '\n' {
				end++
			}
			return s[:i], s[i:end], s[end:]
		}
	}
	return s, s[len(s):], s[len(s):]
}

// All yields the rows of data one at a time; Text and Term alias data.
func All(data []byte) iter.Seq[Row] {
	return func(yield func(Row) bool) {
		for num := 1; len(data) > 0; num++ {
			var r Row
			r.Text, r.Term, data = Cut(data)
			r.Num = num
			if !yield(r) {
				return
			}
		}
	}
}

// Split returns the rows of data, nil when it has none; Text and Term
// alias data.
func Split(data []byte) []Row {
	var rs []Row
	for r := range All(data) {
		rs = append(rs, r)
	}
	return rs
}

// Count is the number of rows of s.
func Count[S ~string | ~[]byte](s S) int {
	n := 0
	for ; len(s) > 0; n++ {
		_, _, s = Cut(s)
	}
	return n
}

// At is the number of the row that holds byte off of s (0 <= off < len(s);
// a terminator belongs to the row it ends).
func At[S ~string | ~[]byte](s S, off int) int {
	n, end := 1, 0
	for rest := s; ; n++ {
		text, term, next := Cut(rest)
		end += len(text) + len(term)
		if off < end || len(next) == 0 {
			return n
		}
		rest = next
	}
}
