package request

import "net"

// Edit replaces Body[Start:End] of a request with Repl; an insertion has
// Start == End.
type Edit struct {
	Start, End int
	Repl       []byte
}

// Splice applies edits, which are ordered and non-overlapping, as pieces:
// the bytes of body between the edits (aliased, not copied) and each
// edit's replacement. Empty runs are left out. Neither body nor a
// replacement (memo entries share them) may be modified afterwards; the
// pieces are only read.
func Splice(body []byte, edits []Edit) net.Buffers {
	out := make(net.Buffers, 0, 2*len(edits)+1)
	prev := 0
	for _, e := range edits {
		if e.Start > prev {
			out = append(out, body[prev:e.Start])
		}
		if len(e.Repl) > 0 {
			out = append(out, e.Repl)
		}
		prev = e.End
	}
	if prev < len(body) {
		out = append(out, body[prev:])
	}
	return out
}

// mergeEdits merges two lists of ordered, non-overlapping edits of one
// body whose spans do not overlap each other into one ordered list.
func mergeEdits(a, b []Edit) []Edit {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([]Edit, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].Start < b[0].Start {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}
