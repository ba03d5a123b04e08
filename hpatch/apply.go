package hpatch

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"hpatch-router/rows"
)

// Edit is the outcome of a patch for one script.
type Edit struct {
	ID     string
	Old    []byte
	New    []byte
	Report string // the script's part of the report, header included
}

// Apply verifies the operations of s against base and returns the edited
// bytes and the report, headed by s.Name(). It is pure. Text targets are
// resolved to the rows they select first, so every check below sees cited
// rows; an edit longer than limit bytes or not valid UTF-8 rejects.
func (s *Section) Apply(base []byte, limit int) (Edit, error) {
	baseRows := rows.Split(base)
	cited, err := citeTexts(s, baseRows)
	if err != nil {
		return Edit{}, err
	}
	return applySection(cited, base, baseRows, limit)
}

// outLine is one row of the edited script and whether the edit wrote it.
type outLine struct {
	text    []byte
	term    []byte
	changed bool
}

// delMark records rows deleted just before out[at].
type delMark struct {
	at       int
	from, to int // old row numbers
}

func applySection(s *Section, base []byte, baseRows []rows.Row, limit int) (Edit, error) {
	if err := verify(s, baseRows); err != nil {
		return Edit{}, err
	}
	n := len(baseRows)
	eol := dominantEOL(baseRows)
	addsAt := map[int][]*Op{} // insertion point: 1..n, n+1 for EOF
	typeAt := map[int]*Op{}
	for i := range s.Ops {
		op := &s.Ops[i]
		switch {
		case op.Kind == OpType:
			typeAt[op.From.Line] = op
		case op.From.EOF:
			addsAt[n+1] = append(addsAt[n+1], op)
		default:
			addsAt[op.From.Line] = append(addsAt[op.From.Line], op)
		}
	}
	var out []outLine
	var dels []delMark
	unterminated := false
	for i := 1; i <= n+1; {
		if i == n+1 && len(addsAt[i]) > 0 && len(out) > 0 && len(out[len(out)-1].term) == 0 {
			// Appending after an unterminated last row: it gets the file's
			// line ending, and the appended text ends unterminated instead,
			// so the file keeps "no final line ending".
			out[len(out)-1].term = eol
			unterminated = true
		}
		for _, op := range addsAt[i] {
			for _, v := range op.Value {
				out = append(out, outLine{[]byte(v), eol, true})
			}
		}
		if i == n+1 {
			break
		}
		op := typeAt[i]
		if op == nil {
			out = append(out, outLine{baseRows[i-1].Text, baseRows[i-1].Term, false})
			i++
			continue
		}
		if len(op.Value) == 0 {
			dels = append(dels, delMark{len(out), op.From.Line, op.To.Line})
		}
		for k, v := range op.Value {
			term := eol
			if k == len(op.Value)-1 {
				term = baseRows[op.To.Line-1].Term
			}
			out = append(out, outLine{[]byte(v), term, true})
		}
		i = op.To.Line + 1
	}
	if unterminated {
		out[len(out)-1].term = nil
	}
	if k := len(out) - 1; k >= 0 && len(out[k].term) == 0 && len(out[k].text) == 0 {
		// An empty last row exists only with a terminator.
		out[k].term = eol
	}
	return finish(s, base, out, dels, limit)
}

// finish assembles the edited script and its report.
func finish(s *Section, base []byte, out []outLine, dels []delMark, limit int) (Edit, error) {
	keepRowsApart(out)
	var buf bytes.Buffer
	for _, l := range out {
		buf.Write(l.text)
		buf.Write(l.term)
	}
	if buf.Len() > limit {
		return Edit{}, ErrorAt(s.Line, "the edited %s would be %d bytes; at most %d are allowed", s.Name(), buf.Len(), limit)
	}
	if !utf8.Valid(buf.Bytes()) {
		return Edit{}, ErrorAt(s.Line, "the edited %s would not be valid UTF-8", s.Name())
	}
	return Edit{ID: s.ID, Old: base, New: buf.Bytes(), Report: report(s.Name(), out, dels)}, nil
}

// keepRowsApart fixes the one terminator pair that would merge: a row
// ending with a lone CR followed by an empty row ending with LF reads back
// as one CRLF, losing a row. The terminator the edit chose changes: the
// empty row ends with CR like the row before it, or the row before it ends
// with CRLF.
func keepRowsApart(out []outLine) {
	for i := 1; i < len(out); i++ {
		prev, cur := &out[i-1], &out[i]
		if string(prev.term) != "\r" || len(cur.text) != 0 || !bytes.HasPrefix(cur.term, []byte("\n")) {
			continue
		}
		switch {
		case cur.changed:
			cur.term = []byte("\r")
		case prev.changed:
			prev.term = []byte("\r\n")
		}
	}
}

// verify checks every target of s against rows, the one baseline: ranges
// in order (a grammar cannot compare numbers, so Parse leaves this
// here), rows in range, hashes current, no two `type` ranges overlapping, and no
// `add` inside a replaced range. Several adds at one insertion point are
// allowed and insert in the order written; an add at the first row of a
// replaced range inserts before the replacement.
func verify(s *Section, baseRows []rows.Row) error {
	ref := s.Name()
	check := func(op *Op, p Pos) error {
		if p.EOF {
			return nil
		}
		if p.Line > len(baseRows) {
			last := ""
			if n := len(baseRows); n > 0 {
				last = "; the last is " + citeRow(baseRows[n-1])
			}
			return ErrorAt(op.Line, "row %d is past the end of %s (%d rows%s); cite rows from `hread %s` or the last report", p.Line, ref, len(baseRows), last, ref)
		}
		r := baseRows[p.Line-1]
		if h := rows.Hash(r.Text); h != p.Hash {
			return ErrorAt(op.Line, "%s is stale: row %d of %s is now %s%s; nothing was changed", p, p.Line, ref, citeRow(r), near(baseRows, p))
		}
		return nil
	}
	var types []*Op
	for i := range s.Ops {
		op := &s.Ops[i]
		switch {
		case op.To.Line < op.From.Line:
			return ErrorAt(op.Line, "range %s..%s ends before it starts", op.From, op.To)
		case op.To.Line == op.From.Line && op.To.Hash != op.From.Hash:
			return ErrorAt(op.Line, "range %s..%s cites row %d with two hashes", op.From, op.To, op.From.Line)
		}
		if err := check(op, op.From); err != nil {
			return err
		}
		if op.Kind == OpType {
			if err := check(op, op.To); err != nil {
				return err
			}
			types = append(types, op)
		}
	}
	sort.SliceStable(types, func(i, j int) bool { return types[i].From.Line < types[j].From.Line })
	for i := 1; i < len(types); i++ {
		a, b := types[i-1], types[i]
		if b.From.Line <= a.To.Line {
			later, earlier := b, a
			if a.Line > b.Line {
				later, earlier = a, b
			}
			return ErrorAt(later.Line, "rows %s overlap rows %s targeted at line %d; merge them into one type", span(later), span(earlier), earlier.Line)
		}
	}
	// inside[l] is the type whose range holds row l after its first row;
	// ranges do not overlap now, so filling it is linear in the rows.
	inside := make([]*Op, len(baseRows)+1)
	for _, t := range types {
		for l := t.From.Line + 1; l <= t.To.Line; l++ {
			inside[l] = t
		}
	}
	for i := range s.Ops {
		op := &s.Ops[i]
		if op.Kind != OpAdd || op.From.EOF {
			continue
		}
		if t := inside[op.From.Line]; t != nil {
			return ErrorAt(op.Line, "add before row %d falls inside rows %s replaced at line %d; put the text in that type's VALUE", op.From.Line, span(t), t.Line)
		}
	}
	return nil
}

// staleWindow is how far from a stale row near looks for the cited text.
const staleWindow = 20

// near describes the rows around a stale citation p: its neighbours, and
// the nearest row within staleWindow that still has the cited hash (the
// row moved when lines were added or removed above it).
func near(baseRows []rows.Row, p Pos) string {
	var b strings.Builder
	i := p.Line - 1
	var around []string
	if i > 0 {
		around = append(around, citeRow(baseRows[i-1]))
	}
	if i+1 < len(baseRows) {
		around = append(around, citeRow(baseRows[i+1]))
	}
	if len(around) > 0 {
		b.WriteString(" (around it: " + strings.Join(around, ", ") + ")")
	}
	for d := 1; d <= staleWindow; d++ {
		for _, j := range []int{i - d, i + d} {
			if j >= 0 && j < len(baseRows) && rows.Hash(baseRows[j].Text) == p.Hash {
				b.WriteString("; the cited text may now be row " + citeRow(baseRows[j]))
				return b.String()
			}
		}
	}
	return b.String()
}

// citeRow renders a row for a diagnostic: `LINE:HASH TEXT`, clipped.
func citeRow(r rows.Row) string { return "`" + r.Cite() + " " + clip(string(r.Text)) + "`" }

func span(op *Op) string {
	if op.From.Line == op.To.Line {
		return strconv.Itoa(op.From.Line)
	}
	return strconv.Itoa(op.From.Line) + ".." + strconv.Itoa(op.To.Line)
}

// dominantEOL is the most frequent line ending of rows; ties prefer LF,
// then CRLF. A script without line endings uses LF.
func dominantEOL(baseRows []rows.Row) []byte {
	var lf, crlf, cr int
	for _, r := range baseRows {
		switch string(r.Term) {
		case "\n":
			lf++
		case "\r\n":
			crlf++
		case "\r":
			cr++
		}
	}
	switch {
	case lf >= crlf && lf >= cr:
		return []byte("\n")
	case crlf >= cr:
		return []byte("\r\n")
	default:
		return []byte("\r")
	}
}
