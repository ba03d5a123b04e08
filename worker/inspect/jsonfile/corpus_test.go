package jsonfile

import (
	"flag"
	"testing"

	"hpatch-router/worker/inspect/internal/outlinetest"
	"hpatch-router/worker/inspect/outline"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/*.outline from the outlines made now")

// The corpus: this repository's plugins/shell.bundle.json, a settings
// file written to hold every value type, RFC 6901 escapes, an empty key
// and values deeper than MaxPointerDepth, and a CRLF array. Each file's
// .outline beside it is its expected outline; review a change with
// -update and git diff.
func TestCorpus(t *testing.T) {
	outlinetest.Golden(t, "testdata/corpus", func(_ string, data []byte, lines *outline.Lines) (outline.Result, error) {
		return Outline(data, lines)
	}, *update)
}
