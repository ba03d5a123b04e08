package response

import (
	"testing"
)

// FuzzPrintedText: the text a PrintCarrier carrier prints reads back
// exactly, so a report compared at reconcile time is the one the model
// read.
func FuzzPrintedText(f *testing.F) {
	for _, s := range []string{"", "@shell/call_1\n2:abcd x\n", "hpatch: line 1: stale", "\x00\u2028\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := PrintedText(PrintCarrier(s))
		if !ok {
			t.Fatalf("PrintedText refused PrintCarrier(%q)", s)
		}
		if want := string([]rune(s)); got != want { // invalid UTF-8 is replaced by encoding/json
			t.Fatalf("PrintedText(PrintCarrier(%q)) = %q", s, got)
		}
	})
}
