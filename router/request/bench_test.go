//go:build unix

package request

import (
	"bytes"
	"encoding/json"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time. Benchmarks report it per
// op as cpu-ns/op because wall time on a shared CI machine mostly measures
// the neighbours; CPU time (GC included) is what the rewrite really costs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs op in the benchmark loop and reports CPU ns per op.
func loopCPU(b *testing.B, op func()) {
	start := cpuTime()
	n := 0
	for b.Loop() {
		op()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
	}
}

// benchBodies are the request bodies the rewrite benchmarks run over: real
// captures in their compact wire form and a ~1 MB synthetic conversation.
func benchBodies(b *testing.B) []struct {
	name string
	body []byte
} {
	files := []struct{ name, file string }{
		{"cli-lite-exec-001", "cli-lite-exec/001-post.json"},
		{"incremental-tools-001", "incremental-tools/001-post.json"},
		{"model-switch-resume-001", "model-switch-resume/001-post.json"},
		{"flat-0.144-cli", "flat-0.144.0-cli/000-post.json"},
	}
	var out []struct {
		name string
		body []byte
	}
	for _, f := range files {
		out = append(out, struct {
			name string
			body []byte
		}{f.name, compactJSON(b, readCapture(b, f.file))})
	}
	out = append(out, struct {
		name string
		body []byte
	}{"synthetic-1MB", synthetic1MB(b)})
	return out
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

func BenchmarkRequestRewrite(b *testing.B) {
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.body)))
			b.ReportAllocs()
			loopCPU(b, func() {
				if _, _, err := rewriteBody(nil, bb.body); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkRequestRewriterMemo is the steady state of a thread: the same
// tools item again, served from the memo.
func BenchmarkRequestRewriterMemo(b *testing.B) {
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			rr := NewRewriter(0)
			if _, _, err := rewriteBody(rr, bb.body); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(bb.body)))
			b.ReportAllocs()
			loopCPU(b, func() {
				if _, _, err := rewriteBody(rr, bb.body); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkRequestJSONRoundTrip is the baseline: what a decode-and-re-encode
// proxy pays for the same bodies before it has changed anything.
func BenchmarkRequestJSONRoundTrip(b *testing.B) {
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.body)))
			b.ReportAllocs()
			loopCPU(b, func() {
				var v any
				if err := json.Unmarshal(bb.body, &v); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkRequestRewriteRatio reports the rewrite's CPU cost as a ratio
// of the encoding/json round trip of the same body, measured back to back
// in one run so machine load affects both alike: cold-x-json for
// RewriteRequest, memo-x-json for a Rewriter on a repeated body.
func BenchmarkRequestRewriteRatio(b *testing.B) {
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			rr := NewRewriter(0)
			measure := func(op func()) time.Duration {
				start := cpuTime()
				for range 20 {
					op()
				}
				return cpuTime() - start
			}
			var cold, memo, base time.Duration
			for b.Loop() {
				cold += measure(func() { _, _, _ = rewriteBody(nil, bb.body) })
				memo += measure(func() { _, _, _ = rewriteBody(rr, bb.body) })
				base += measure(func() {
					var v any
					_ = json.Unmarshal(bb.body, &v)
					_, _ = json.Marshal(v)
				})
			}
			if base > 0 {
				b.ReportMetric(float64(cold)/float64(base), "cold-x-json")
				b.ReportMetric(float64(memo)/float64(base), "memo-x-json")
			}
		})
	}
}
