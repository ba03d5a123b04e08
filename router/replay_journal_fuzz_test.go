package router

import (
	"strings"
	"testing"
	"time"

	"hpatch-router/retain"
)

// FuzzJournalLine: any journal line either decodes, and then encodes to a
// line that decodes to the same entry or commit, or fails its check with
// a one-line reason (the WARN load gives it), never a panic.
func FuzzJournalLine(f *testing.F) {
	at := time.UnixMilli(1700000000000)
	f.Add(string(appendJournalLine(nil, replayEntry{CallID: "call_1", Carrier: carrierDigest("c"), Sent: "c", Item: `{"a":1}`, At: at})))
	f.Add(string(appendJournalLine(nil, replayEntry{CallID: "call_2", Carrier: carrierDigest("\xff"), Sent: "\xff", Item: "\xfe"})))
	f.Add(string(appendCommitLine(nil, retain.Committed{Call: "call_3", At: at, Retain: "call_3", Content: "#!python3\n", Sum: retain.RetainSum("call_3", "#!python3\n")})))
	f.Add(string(appendCommitLine(nil, retain.Committed{Call: "call_4", At: at, Patch: "in @shell/call_3\nadd EOF \"x\"\n", Sum: "ab"})))
	f.Add(`{"commit":"c","at":1,"retain":"c","content":"x","sum":"00"}`)
	f.Add(`{"call_id":"c","carrier_sha256":"short","item":"{}"}`)
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.TrimSuffix(line, "\n")
		if strings.Contains(line, "\n") {
			return // load splits lines first
		}
		e, c, why := decodeLine([]byte(line))
		if why != "" {
			if strings.ContainsAny(why, "\n\r") {
				t.Fatalf("reason %q is not one line", why)
			}
			return
		}
		if c != nil {
			again := appendCommitLine(nil, c.Committed)
			_, c2, why2 := decodeLine(again[:len(again)-1])
			if why2 != "" || c2 == nil || c2.Committed != c.Committed {
				t.Fatalf("commit %+v re-encoded as %q decodes to %+v (%s)", c.Committed, again, c2, why2)
			}
			return
		}
		again := appendJournalLine(nil, e)
		e2, c2, why2 := decodeLine(again[:len(again)-1])
		if why2 != "" || c2 != nil || e2.CallID != e.CallID || e2.Carrier != e.Carrier || e2.Item != e.Item || e2.Sent != e.Sent || !e2.At.Equal(e.At) {
			t.Fatalf("entry %+v re-encoded as %q decodes to %+v (%s)", e, again, e2, why2)
		}
	})
}

// FuzzPrintedText: the text a printCarrier carrier prints reads back
// exactly, so a report compared at reconcile time is the one the model
// read.
func FuzzPrintedText(f *testing.F) {
	for _, s := range []string{"", "@shell/call_1\n2:abcd x\n", "hpatch: line 1: stale", "\x00\u2028\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := printedText(printCarrier(s))
		if !ok {
			t.Fatalf("printedText refused printCarrier(%q)", s)
		}
		if want := string([]rune(s)); got != want { // invalid UTF-8 is replaced by encoding/json
			t.Fatalf("printedText(printCarrier(%q)) = %q", s, got)
		}
	})
}
