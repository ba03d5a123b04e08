//go:build linux

package worker

import (
	"bytes"
	"testing"
)

// FuzzBashPrintf: any format and arguments end (the format is reused only
// while it consumes arguments), never panic, and output grows at most
// with the width and precision asked for.
func FuzzBashPrintf(f *testing.F) {
	for _, s := range []string{"%q\\n", "%.2f|%5.1f", "%*d", "%.*s", "%b", "\\x41\\101\\u00e9", "%(%Y)T", "%", "%-05.3d", "%c%c"} {
		f.Add(s, "a b", "3.5")
	}
	f.Fuzz(func(t *testing.T, format, a, b string) {
		if len(format) > 64 {
			return // widths are bounded by the format's digits; keep runs small
		}
		var out, errs bytes.Buffer
		code := bashPrintf(&out, &errs, []string{format, a, b})
		if code != 0 && code != 1 {
			t.Fatalf("status %d", code)
		}
	})
}
