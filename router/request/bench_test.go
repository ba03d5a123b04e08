//go:build unix

package request

import (
	"encoding/json"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/routertest"
)

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
		}{f.name, routertest.CompactJSON(b, readCapture(b, f.file))})
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
	base := routertest.CompactJSON(b, readCapture(b, "cli-lite-exec/001-post.json"))
	return routertest.Conversation(b, base, 0, func(n int) bool { return n < 1<<20 })
}

func BenchmarkRequestRewrite(b *testing.B) {
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.body)))
			b.ReportAllocs()
			testenv.LoopCPU(b, func() {
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
			testenv.LoopCPU(b, func() {
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
			testenv.LoopCPU(b, func() {
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
				start := testenv.CPUTime()
				for range 20 {
					op()
				}
				return testenv.CPUTime() - start
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
