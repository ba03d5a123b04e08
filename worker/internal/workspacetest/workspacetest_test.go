package workspacetest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The fixtures named below exist for their line ends: the private
// commands' tests prove rows, hashes and citations over CRLF and lone CR
// with them, and would pass unchanged over LF. An editor, a checkout with
// core.autocrlf or a `gofmt -w .` (gofmt rewrites CRLF; util/crlf.go is
// why `gofmt -l .` names a file: check formatting over `go list ./...`,
// which leaves testdata out) would turn those tests into LF tests
// silently; this test fails instead.
func TestFixturesKeepTheirLineEnds(t *testing.T) {
	root := filepath.Join("..", "..", "..", "testdata", "workspace")
	for _, tc := range []struct {
		path         string
		crlf, loneCR bool
	}{
		{"util/crlf.go", true, false},
		{"docs/crlf.md", true, false},
		{"data/crlf.json", true, false},
		{"text/lonecr.txt", false, true},
	} {
		data, err := os.ReadFile(filepath.Join(root, tc.path))
		if err != nil {
			t.Fatal(err)
		}
		crlf := bytes.Count(data, []byte("\r\n"))
		loneCR := bytes.Count(data, []byte("\r")) - crlf
		if tc.crlf && (crlf == 0 || crlf != bytes.Count(data, []byte("\n"))) {
			t.Errorf("%s: %d CRLF of %d line ends; every line must end in CRLF", tc.path, crlf, bytes.Count(data, []byte("\n")))
		}
		if tc.loneCR && loneCR == 0 {
			t.Errorf("%s: no lone CR left", tc.path)
		}
	}
}
