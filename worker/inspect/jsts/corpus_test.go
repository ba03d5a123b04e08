package jsts

import (
	"flag"
	"testing"

	"hpatch-router/worker/inspect/internal/outlinetest"
	"hpatch-router/worker/inspect/outline"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus/*.outline from the outlines made now")

// The corpus: two of this repository's own plugin scripts, Codex's
// exec_command declarations (.d.ts), and files written to hold what real
// code does — an Angular-style TypeScript service (decorators, overloads,
// generics, enums, namespaces, ambient declarations), a React TSX
// component (JSX text with quotes and braces, generic arrows), and an
// old-style script (a #! line, ASI, regular expressions beside divisions,
// nested templates, nested classes). Each file's .outline beside it is
// its expected outline; review a change with -update and git diff.
func TestCorpus(t *testing.T) {
	outlinetest.Golden(t, "testdata/corpus", func(path string, data []byte, lines *outline.Lines) (outline.Result, error) {
		return Outline(language(path), data, lines)
	}, *update)
}
