package retain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"iter"
	"strconv"
)

// Row is one line of a file as the private commands and hpatch cite it.
type Row struct {
	Num  int    // 1-based line number
	Text []byte // the line without its terminator
	Term []byte // "\n", "\r\n", "\r" or empty for a final unterminated line
}

// Hash is the row hash: the first 2 bytes of SHA-256 of the exact line (no
// terminator) as 4 lowercase hex digits.
func Hash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:2])
}

// Cite renders the LINE:HASH position of a row.
func (r Row) Cite() string {
	return strconv.Itoa(r.Num) + ":" + Hash(r.Text)
}

// Rows splits data into rows on LF, CRLF and lone CR. A final terminator
// does not start an empty row; empty data has no rows. Text and Term alias
// data.
func Rows(data []byte) []Row {
	// One allocation: a CR or LF ends at most one row each (CRLF counts
	// twice, an over-estimate that costs a little capacity, not a copy).
	n := bytes.Count(data, []byte{'\n'}) + bytes.Count(data, []byte{'\r'}) + 1
	rows := make([]Row, 0, n)
	for r := range AllRows(data) {
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil
	}
	return rows
}

// AllRows yields the rows Rows returns, one at a time, allocating nothing:
// for files whose rows would not fit in memory as a slice (a row costs 56
// bytes; 64 MiB of empty lines would cost 3.5 GiB).
func AllRows(data []byte) iter.Seq[Row] {
	return func(yield func(Row) bool) {
		num, start := 0, 0
		for i := 0; i < len(data); i++ {
			var end int
			switch data[i] {
			case '\n':
				end = i + 1
			case '\r':
				end = i + 1
				if end < len(data) && data[end] == '\n' {
					end++
				}
			default:
				continue
			}
			num++
			if !yield(Row{num, data[start:i], data[i:end]}) {
				return
			}
			start, i = end, end-1
		}
		if start < len(data) {
			yield(Row{num + 1, data[start:], nil})
		}
	}
}

// CountRows is len(Rows(data)) without building the rows.
func CountRows(data []byte) int {
	n := 0
	for range AllRows(data) {
		n++
	}
	return n
}
