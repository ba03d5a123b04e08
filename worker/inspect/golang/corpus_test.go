package golang

import (
	"flag"
	"testing"

	"hpatch-router/worker/inspect/internal/outlinetest"
	"hpatch-router/worker/inspect/outline"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/*.outline from the outlines made now")

// The corpus: this repository's rows/rows.go, a cache package written to
// hold grouped and single declarations, generic types and receivers,
// blank and dot imports, and a file with a syntax error (broken.go.txt, so gofmt passes it by: what go/parser
// recovers, ParseComplete false). Each file's .outline beside it is its
// expected outline; review a change with -update and git diff.
func TestCorpus(t *testing.T) {
	outlinetest.Golden(t, "testdata/corpus", func(_ string, data []byte, lines *outline.Lines) (outline.Result, error) {
		return Outline(data, lines)
	}, *update)
}
