package outline

import (
	"hpatch-router/rows"
	"sort"
)

// Lines maps byte offsets of one file onto its rows. It keeps one offset
// per row, not the rows: a row is rebuilt from the data when asked for.
type Lines struct {
	data   []byte
	starts []int // start offset of each row
}

// NewLines indexes data's rows by the project's row rule.
func NewLines(data []byte) *Lines {
	l := &Lines{data: data}
	off := 0
	for r := range rows.All(data) {
		l.starts = append(l.starts, off)
		off += len(r.Text) + len(r.Term)
	}
	return l
}

// Count is the number of rows.
func (l *Lines) Count() int { return len(l.starts) }

// LineOf returns the 1-based row holding byte offset off (clamped).
func (l *Lines) LineOf(off int) int {
	if len(l.starts) == 0 {
		return 1
	}
	i := sort.SearchInts(l.starts, off+1) // rows starting at or before off
	if i < 1 {
		i = 1
	}
	return i
}

// Row returns row n (1-based); ok is false when out of range.
func (l *Lines) Row(n int) (rows.Row, bool) {
	if n < 1 || n > len(l.starts) {
		return rows.Row{}, false
	}
	for r := range rows.All(l.data[l.starts[n-1]:]) {
		r.Num = n
		return r, true
	}
	return rows.Row{}, false
}

// Cite renders row n as LINE:HASH; an out-of-range row cites the empty line.
func (l *Lines) Cite(n int) string {
	if r, ok := l.Row(n); ok {
		return r.Cite()
	}
	return rows.Row{Num: n}.Cite()
}
