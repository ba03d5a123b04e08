package outline

import (
	"hpatch-router/rows"
)

// Lines maps byte offsets of one file onto its rows (rows.Index: the
// offset-to-row rule is package rows').
type Lines struct{ *rows.Index }

// NewLines indexes data's rows.
func NewLines(data []byte) *Lines { return &Lines{rows.NewIndex(data)} }

// LineOf returns the 1-based row holding byte offset off (clamped).
func (l *Lines) LineOf(off int) int { return l.At(off) }

// Cite renders row n as LINE:HASH; an out-of-range row cites the empty line.
func (l *Lines) Cite(n int) string {
	if r, ok := l.Row(n); ok {
		return r.Cite()
	}
	return rows.Row{Num: n}.Cite()
}
