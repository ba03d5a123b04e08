package grammar

import (
	"os"
	"strings"
	"testing"
)

// FuzzCheckLark: any text is checked without a panic, every problem is on
// one line of the grammar (or 0) and says what to do.
func FuzzCheckLark(f *testing.F) {
	if src, err := os.ReadFile("../hpatch.lark"); err == nil {
		f.Add(string(src))
	}
	for _, s := range []string{"start: a\na: \"x\" | /y/i\n", "%import common.WS\n%ignore WS\n", "start: (\"a\"\n", "?start{x}: [x]~2..3 -> y\n", "A: /(?=a)/x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Count(src, "\n") + 1
		for _, p := range CheckLark(src) {
			if p.Line < 0 || p.Line > lines || p.Msg == "" || strings.Contains(p.Msg, "\n") {
				t.Fatalf("problem %+v of %q", p, src)
			}
		}
	})
}
