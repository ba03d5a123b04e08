//go:build unix

package request

import (
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/plugins/registry"
	"hpatch-router/plugins/registry/registrytest"
)

// BenchmarkRequestToolsRatio is what five declared tools cost the request
// rewrite (parse, owners from the memo, splice), the only request work
// they add: the same body rewritten with none and with five, back to back
// in one run so machine load affects both alike. tools-x-none is the CPU
// ratio (issue 34: within 5%).
func BenchmarkRequestToolsRatio(b *testing.B) {
	five := registrytest.Load(b, registrytest.TwoTools+`
[[tool]]
name = "jq"
description = "Run a jq filter on ./data.json. Input: the filter."
run = ["jq", "-f"]
[[tool]]
name = "calc"
description = "Add integers, e.g. 2+3."
run = ["bc"]
input = "stdin"
format = { type = "grammar", syntax = "regex", definition = '[0-9]+(\+[0-9]+)*' }
[[tool]]
name = "gotest"
description = "Run go test. Input: a package pattern and a test name."
run = ["sh", "-c", 'read -r p r; exec go test -run "$r" "$p"']
input = "stdin"
format = { type = "grammar", syntax = "lark", definition = "start: PKG (\" \" RUN)?\nPKG: /\\.\\/[A-Za-z0-9_.\\/-]*/\nRUN: /[A-Za-z0-9_|^$.*()\\/-]+/" }
`)
	if five.Len() != 5 {
		b.Fatalf("%d tools", five.Len())
	}
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			rr := NewRewriter(0)
			rewrite := func(set *registry.Set) {
				r, err := Parse(bb.body)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := rr.Rewrite(r, set, nil); err != nil {
					b.Fatal(err)
				}
			}
			measure := func(set *registry.Set) time.Duration {
				start := testenv.CPUTime()
				for range 20 {
					rewrite(set)
				}
				return testenv.CPUTime() - start
			}
			rewrite(nil)
			var none, tools time.Duration
			for b.Loop() {
				none += measure(nil)
				tools += measure(five)
			}
			if none > 0 {
				b.ReportMetric(float64(tools)/float64(none), "tools-x-none")
			}
		})
	}
}
