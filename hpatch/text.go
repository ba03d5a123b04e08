package hpatch

import (
	"bytes"
	"hpatch-router/rows"
	"strconv"
	"strings"
)

// maxListedRows bounds how many matching rows a COUNT diagnostic lists.
const maxListedRows = 8

// citeTexts returns s with every text target replaced by the rows it
// selects, cited as LINE:HASH against rows: a `type` or `add` with a text
// target of COUNT n becomes n operations, one per matching row, in file
// order. The number of matching rows must be exactly COUNT; otherwise the
// diagnostic lists them as LINE:HASH rows so the next edit can cite one.
// A section without text targets is returned as it is.
func citeTexts(s *Section, baseRows []rows.Row) (*Section, error) {
	has := false
	for _, op := range s.Ops {
		has = has || op.From.IsText()
	}
	if !has {
		return s, nil
	}
	c := *s
	c.Ops = make([]Op, 0, len(s.Ops))
	for _, op := range s.Ops {
		if !op.From.IsText() {
			c.Ops = append(c.Ops, op)
			continue
		}
		matches := matchingRows(baseRows, op.From.Text)
		if len(matches) != op.From.Count {
			return nil, countError(s, op, baseRows, matches)
		}
		for _, i := range matches {
			p := Pos{Line: i + 1, Hash: rows.Hash(baseRows[i].Text)}
			c.Ops = append(c.Ops, Op{Kind: op.Kind, Line: op.Line, From: p, To: p, Value: op.Value})
		}
	}
	return &c, nil
}

// matchingRows is the indexes of the rows whose text contains text.
func matchingRows(baseRows []rows.Row, text string) []int {
	var out []int
	for i, r := range baseRows {
		if bytes.Contains(r.Text, []byte(text)) {
			out = append(out, i)
		}
	}
	return out
}

// countError says how many rows a text target matched and lists the
// first of them.
func countError(s *Section, op Op, baseRows []rows.Row, matches []int) error {
	want := "1 row"
	if op.From.Count != 1 {
		want = strconv.Itoa(op.From.Count) + " rows"
	}
	target := Pos{Text: op.From.Text, Count: 1}.String()
	if strings.ContainsAny(op.From.Text, "\r\n") {
		return ErrorAt(op.Line, "%s holds a line break, and a row never does; cite the rows as LINE:HASH..LINE:HASH; nothing was changed", clip(target))
	}
	if len(matches) == 0 {
		return ErrorAt(op.Line, "%s matches no row of %s (%d rows), not %s; cite rows from `hread %s`; nothing was changed", clip(target), s.Name(), len(baseRows), want, s.Name())
	}
	var b strings.Builder
	for k, i := range matches {
		if k == maxListedRows {
			b.WriteString(", … " + strconv.Itoa(len(matches)-k) + " more")
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(citeRow(baseRows[i]))
	}
	return ErrorAt(op.Line, "%s matches %d rows of %s, not %s: %s; cite one as LINE:HASH or give the COUNT; nothing was changed", clip(target), len(matches), s.Name(), want, b.String())
}
