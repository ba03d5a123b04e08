package threadstate

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
	f.Add(string(appendJournalLine(nil, Entry{callID: "call_1", carrier: carrierDigest("c"), sent: "c", Item: `{"a":1}`, At: at})))
	f.Add(string(appendJournalLine(nil, Entry{callID: "call_2", carrier: carrierDigest("\xff"), sent: "\xff", Item: "\xfe"})))
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
		if why2 != "" || c2 != nil || e2.callID != e.callID || e2.carrier != e.carrier || e2.Item != e.Item || e2.sent != e.sent || !e2.At.Equal(e.At) {
			t.Fatalf("entry %+v re-encoded as %q decodes to %+v (%s)", e, again, e2, why2)
		}
	})
}
