package routertest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
)

// CompactJSON is a stored capture as Codex sends it on the wire (the
// captures under testdata/codex/captures are pretty-printed for reading).
func CompactJSON(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// Conversation appends exec calls and their outputs, numbered from first,
// to the input array of the compact request base while more(size so far)
// holds, each turn's output 2.3 KB, as a Codex session grows. The router's
// and the request stage's long-thread benchmarks and tests share it, so
// both measure the same body.
func Conversation(tb testing.TB, base []byte, first int, more func(int) bool) []byte {
	tb.Helper()
	end := bytes.LastIndex(base, []byte(`],"tool_choice"`))
	if end < 0 {
		tb.Fatal("capture shape changed")
	}
	var buf bytes.Buffer
	buf.Write(base[:end])
	out := bytes.Repeat([]byte("line of command output with some text\\n"), 60)
	for i := first; more(buf.Len()); i++ {
		id := strconv.Itoa(i)
		buf.WriteString(`,{"type":"custom_tool_call","id":"ctc_` + id + `","status":"completed","call_id":"call_` + id +
			`","name":"exec","namespace":"functions","input":"const r = await tools.exec_command({cmd: \"ls -la\"});\ntext(JSON.stringify(r));"}`)
		buf.WriteString(`,{"type":"custom_tool_call_output","id":"ctco_` + id + `","call_id":"call_` + id + `","output":[{"type":"input_text","text":"Script completed\nWall time 0.1 seconds\nOutput:\n"},{"type":"input_text","text":"`)
		buf.Write(out)
		buf.WriteString(`"}]}`)
	}
	buf.Write(base[end:])
	if !json.Valid(buf.Bytes()) {
		tb.Fatal("synthetic body is not valid JSON")
	}
	return buf.Bytes()
}
