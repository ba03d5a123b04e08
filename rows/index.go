package rows

import "sort"

// Index maps byte offsets of one text onto its rows, for a caller that
// asks many times (an outliner citing every entry): it keeps the start
// offset of each row, not the rows, and rebuilds a row when asked.
type Index struct {
	data   []byte
	starts []int
}

// NewIndex indexes data's rows.
func NewIndex(data []byte) *Index {
	x := &Index{data: data}
	off := 0
	for r := range All(data) {
		x.starts = append(x.starts, off)
		off += len(r.Text) + len(r.Term)
	}
	return x
}

// Count is the number of rows.
func (x *Index) Count() int { return len(x.starts) }

// At is the number of the row that holds byte off, as At(data, off) is:
// a terminator belongs to the row it ends, an offset before the text is
// in row 1 and one past it in the last row.
func (x *Index) At(off int) int {
	return max(1, sort.SearchInts(x.starts, off+1)) // the rows starting at or before off
}

// Row returns row n (1-based); ok is false when out of range.
func (x *Index) Row(n int) (Row, bool) {
	if n < 1 || n > len(x.starts) {
		return Row{}, false
	}
	for r := range All(x.data[x.starts[n-1]:]) {
		r.Num = n
		return r, true
	}
	return Row{}, false
}
