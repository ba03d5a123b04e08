package markdown

import (
	"flag"
	"testing"

	"hpatch-router/worker/inspect/internal/outlinetest"
	"hpatch-router/worker/inspect/outline"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/*.outline from the outlines made now")

// The corpus: two of this repository's documents (docs/) and a guide
// written to hold what real Markdown does — front matter with scalar,
// list and mapping values, setext headings, fenced code in a list item,
// indented code, a tilde fence, a block quote with a lazy line, an HTML
// block, inline markup in a heading, headings in list items, a thematic
// break, closing sequences. Each file's .outline beside it is its
// expected outline; review a change with -update and git diff.
func TestCorpus(t *testing.T) {
	outlinetest.Golden(t, "testdata/corpus", func(_ string, data []byte, lines *outline.Lines) (outline.Result, error) {
		return Outline(data, lines)
	}, *update)
}
