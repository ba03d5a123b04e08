package router

import (
	"bytes"
	"math"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// FuzzSequenceNumber holds the renumbering's reading of sequence_number to
// gjson's and its in-place replacement to sjson's, on every valid event.
func FuzzSequenceNumber(f *testing.F) {
	for _, s := range []string{
		`{"type":"response.output_text.delta","delta":"a\"b","sequence_number":17}`,
		`{"sequence_number":-3,"x":{"sequence_number":1}}`,
		`{"a":[1,{"sequence_number":2}],"sequence_number":1.5e1}`,
		`{"sequence_number":"4","sequence_number":5}`,
		`{"sequenc\u0065_number":9}`,
		`{"sequence_number":99999999999999999999}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, n, ok := sequenceNumber(data)
		if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
			return
		}
		r := gjson.GetBytes(data, "sequence_number")
		if ok != (r.Type == gjson.Number) || ok && n != r.Int() {
			t.Fatalf("sequence_number %v %d, gjson reads %v", ok, n, r)
		}
		if !ok {
			return
		}
		if n == math.MaxInt64 {
			return
		}
		// The event's number was already used: it moves to the next one.
		w := &sseRewriter{lastSeq: n, seqSeen: true}
		s, e, _, _ := sequenceNumber(data)
		got, moved := w.renumberAt(data, s, e)
		want, err := sjson.SetBytes(bytes.Clone(data), "sequence_number", n+1)
		if !moved || err != nil || !bytes.Equal(got, want) {
			t.Fatalf("renumbered %s, sjson gives %s (%v)", got, want, err)
		}
	})
}
