package python

import (
	"flag"
	"testing"

	"hpatch-router/worker/inspect/internal/outlinetest"
	"hpatch-router/worker/inspect/outline"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/*.outline from the outlines made now")

// The corpus: this repository's Lark grammar check (retain/testdata) and
// a client module written to hold what real Python code does — a
// docstring hiding a def, grouped and guarded imports, decorated and
// nested classes and functions, async defs, f-strings with nested quotes
// and braces, a match statement, a backslash continuation. Each file's
// .outline beside it is its expected outline; review a change with
// -update and git diff.
func TestCorpus(t *testing.T) {
	outlinetest.Golden(t, "testdata/corpus", func(_ string, data []byte, lines *outline.Lines) (outline.Result, error) {
		return Outline(data, lines)
	}, *update)
}
