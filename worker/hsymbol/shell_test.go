//go:build linux

package hsymbol_test

import (
	"os"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"hpatch-router/internal/testenv"
	"hpatch-router/worker"
	"hpatch-router/worker/hsymbol"
	"hpatch-router/worker/internal/workspacetest"
)

// TestCommandsInABashEvaluation proves stdio integration through the
// worker's own middleware (worker.PrivateCommands): hgrep piped into head,
// inspect_file redirected to a file read by jq, and a cd that moves the
// commands' cwd.
func TestCommandsInABashEvaluation(t *testing.T) {
	for _, tool := range []string{"jq", "head", "rg"} {
		testenv.NeedTool(t, tool)
	}
	dir := workspacetest.Copy(t)
	script := `set -e
hgrep -n needle | head -2
inspect_file util/util.go > outline.json
jq -r '.data.outline[] | select(.kind == "method") | "\(.receiver).\(.name) \(.line)"' < outline.json
cd docs
inspect_file guide.md | jq -c '[.ok, .data.path, (.data.outline | length)]'
hgrep -c needle crlf.md 2>&1
hgrep --multiline x || echo "status $?"
`
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "t.sh")
	if err != nil {
		t.Fatal(err)
	}
	// Both sides of a pipeline write stderr concurrently, as in a shell.
	var out, errb testenv.Buffer
	symbols := hsymbol.NewSessions()
	defer symbols.Close()
	r, err := interp.New(
		interp.StdIO(nil, &out, &errb),
		interp.Dir(dir),
		interp.Env(expand.ListEnviron(os.Environ()...)),
		interp.ExecHandlers(worker.PrivateCommands(nil, symbols)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(t.Context(), file); err != nil {
		t.Fatalf("script failed: %v; stderr %q", err, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		`*Counter.Add 29:d85f`,
		`*Counter.Total 37:1889`,
		`[true,"guide.md",8]`,
		`hgrep: ignored -c: hgrep always prints rows "PATH":LINE:HASH TEXT for matching and context lines`,
		`"crlf.md":3:57c4 needle in a crlf file`,
		`status 2`,
	}
	if len(lines) != 2+len(want) {
		t.Fatalf("output:\n%s", out.String())
	}
	for i, l := range lines[:2] {
		if !strings.HasPrefix(l, `"`) || !strings.Contains(l, "needle") {
			t.Fatalf("head line %d is not an hgrep row: %q", i, l)
		}
	}
	for i, w := range want {
		if lines[2+i] != w {
			t.Fatalf("line %d: %q, want %q\n%s", 2+i, lines[2+i], w, out.String())
		}
	}
	if !strings.Contains(errb.String(), "hgrep: ignored -n") ||
		!strings.Contains(errb.String(), "hgrep: --multiline changes what a line is") {
		t.Fatalf("stderr %q", errb.String())
	}
}
