package router

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// captureDir holds the shared captures of real Codex requests.
const captureDir = "../testdata/codex/captures"

func readCapture(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(captureDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compactJSON is the capture as Codex sends it on the wire (the stored
// captures are pretty-printed for reading).
func compactJSON(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// synthetic1MB grows a real 0.169 request to about 1 MiB with a long
// conversation of exec calls and outputs after the tools item, the shape a
// long Codex session reaches.
func synthetic1MB(b testing.TB) []byte {
	base := compactJSON(b, readCapture(b, "cli-lite-exec/001-post.json"))
	return conversation(b, base, 0, func(n int) bool { return n < 1<<20 })
}

// conversation appends exec calls and their outputs, numbered from first,
// to the input array of the compact request base while more(size so far)
// holds, each turn's output 2.3 KB, as a Codex session grows.
func conversation(tb testing.TB, base []byte, first int, more func(int) bool) []byte {
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
