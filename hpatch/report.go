package hpatch

import (
	"hpatch-router/rows"
	"strconv"
	"strings"
)

// report renders one file's part of an hpatch report: the header (its
// `@shell/<id>` or path), then every written row as `LINE:HASH TEXT` (the hread row
// format, so the next edit can cite it) with one row of context before and
// after. Deleted rows appear as `(deleted old rows A..B)` where they were;
// `--` separates rows that are not adjacent; `(empty)` marks a script
// left without rows.
func report(name string, out []outLine, dels []delMark) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('\n')
	show := make([]bool, len(out))
	mark := func(i int) {
		if i >= 0 && i < len(out) {
			show[i] = true
		}
	}
	for i, l := range out {
		if l.changed {
			mark(i - 1)
			mark(i)
			mark(i + 1)
		}
	}
	delsAt := map[int][]delMark{}
	for _, d := range dels {
		mark(d.at - 1)
		mark(d.at)
		delsAt[d.at] = append(delsAt[d.at], d)
	}
	emitted, gap := false, false
	emit := func(s string) {
		if gap {
			b.WriteString("--\n")
			gap = false
		}
		b.WriteString(s)
		b.WriteByte('\n')
		emitted = true
	}
	for i := 0; i <= len(out); i++ {
		for _, d := range delsAt[i] {
			if d.from == d.to {
				emit("(deleted old row " + strconv.Itoa(d.from) + ")")
			} else {
				emit("(deleted old rows " + strconv.Itoa(d.from) + ".." + strconv.Itoa(d.to) + ")")
			}
		}
		if i == len(out) {
			break
		}
		if show[i] {
			r := rows.Row{Num: i + 1, Text: out[i].text}
			emit(r.Cite() + " " + string(r.Text))
		} else if emitted {
			gap = true
		}
	}
	if len(out) == 0 {
		emit("(empty)")
	}
	return b.String()
}

// FormatReport joins the reports of edits in order.
func FormatReport(edits []Edit) string {
	var b strings.Builder
	for _, e := range edits {
		b.WriteString(e.Report)
	}
	return b.String()
}
