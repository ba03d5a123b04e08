package response

import (
	"bytes"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// RewriteOutput replaces every in-scope call of the output array at path in
// doc by its carrier, splicing the carrier bytes in place so the rest of
// the document stays byte-identical. It reports whether anything changed.
func (s *Session) RewriteOutput(doc []byte, path string) ([]byte, bool) {
	arr := gjson.GetBytes(doc, path)
	if !arr.IsArray() {
		return doc, false
	}
	var sp []carrierSplice
	var repeats []int // indexes of a withheld call's later copies
	listed := map[string]bool{}
	i := 0
	arr.ForEach(func(_, v gjson.Result) bool {
		if s.inScope(v) {
			if withholds(v) {
				s.repeatedCall(v) // logs a repeat the stream did not show
				id := v.Get("call_id").String()
				if id != "" && listed[id] {
					repeats = append(repeats, i)
					i++
					return true
				}
				listed[id] = true
			}
			if c := s.carrierItem(v); c != nil {
				sp = append(sp, carrierSplice{i, v.Index, v.Index + len(v.Raw), c})
			}
		}
		i++
		return true
	})
	if len(sp) == 0 && len(repeats) == 0 {
		return doc, false
	}
	out, ok := spliceCarriers(doc, path, arr, sp)
	if !ok {
		return doc, false
	}
	for k := len(repeats) - 1; k >= 0; k-- { // from the end, so the indexes stay valid
		nd, err := sjson.DeleteBytes(out, fmt.Sprintf("%s.%d", path, repeats[k]))
		if err != nil {
			return doc, false
		}
		out = nd
	}
	return out, true
}

// carrierSplice puts a carrier in place of the output array's item at
// index, whose bytes are doc[start:end].
type carrierSplice struct {
	index      int
	start, end int
	with       []byte
}

// spliceCarriers applies sp to doc, in place where the positions are
// exact, else by path.
func spliceCarriers(doc []byte, path string, arr gjson.Result, sp []carrierSplice) ([]byte, bool) {
	exact := arr.Index > 0
	for _, p := range sp {
		if p.start <= 0 || p.end > len(doc) || !bytes.Equal(doc[p.start:p.end], []byte(gjson.GetBytes(doc, fmt.Sprintf("%s.%d", path, p.index)).Raw)) {
			exact = false
			break
		}
	}
	if !exact { // positions unknown: edit by path instead
		out := append([]byte(nil), doc...)
		for _, p := range sp {
			nd, err := sjson.SetRawBytes(out, fmt.Sprintf("%s.%d", path, p.index), p.with)
			if err != nil {
				return nil, false
			}
			out = nd
		}
		return out, true
	}
	out := make([]byte, 0, len(doc)+256*len(sp))
	prev := 0
	for _, p := range sp {
		out = append(out, doc[prev:p.start]...)
		out = append(out, p.with...)
		prev = p.end
	}
	return append(out, doc[prev:]...), true
}
