package hread

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/rows"
	"hpatch-router/worker/internal/workspacetest"
	"hpatch-router/worker/privcmd"
)

// writes records every Write hread makes to stdout.
type writes struct{ pieces [][]byte }

func (w *writes) Write(p []byte) (int, error) {
	w.pieces = append(w.pieces, bytes.Clone(p))
	return len(p), nil
}

// rowsFile writes n rows of varying length to dir/name and returns the
// rows hread prints for them, built here independently of hread.
func rowsFile(t *testing.T, dir, name string, n int) []string {
	t.Helper()
	var file strings.Builder
	want := make([]string, n)
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("row %d %s", i, strings.Repeat("x", i%37))
		file.WriteString(line + "\n")
		want[i-1] = fmt.Sprintf("%d:%s %s\n", i, rows.Hash([]byte(line)), line)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return want
}

// Output larger than flushAt leaves in pieces of at most flushAt bytes,
// each ending at a row boundary, and together they are exactly the rows:
// nothing lost, repeated or reordered at a piece boundary, with or
// without the limit cutting the window.
func TestHreadWritesInPieces(t *testing.T) {
	dir := t.TempDir()
	want := rowsFile(t, dir, "f", 20000) // about 560 KB of rows
	cases := []struct {
		name   string
		limit  int
		args   []string
		first  int // 1-based rows printed
		last   int
		code   int
		notice string
	}{
		{"a range wider than one piece", 1 << 20, []string{"f", "101:15000"}, 101, 15000, 0, ""},
		{"the limit cuts after several pieces", 3*flushAt + 100, []string{"f"}, 1, 0, privcmd.ExitTruncated, "continue with: hread f "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out writes
			var errb bytes.Buffer
			l := privcmd.Bounds("hread")
			l.Output = c.limit
			env := &privcmd.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir, Limits: l}
			code := Run(context.Background(), env, append([]string{"hread"}, c.args...))
			if code != c.code || !strings.Contains(errb.String(), c.notice) || (c.notice == "" && errb.Len() != 0) {
				t.Fatalf("exit %d, stderr %q", code, errb.String())
			}
			if len(out.pieces) < 2 {
				t.Fatalf("%d write(s); want the output in pieces", len(out.pieces))
			}
			for i, p := range out.pieces {
				if len(p) > flushAt || !bytes.HasSuffix(p, []byte("\n")) {
					t.Fatalf("piece %d: %d bytes, ends %q; want at most %d bytes ending a row", i, len(p), p[max(0, len(p)-8):], flushAt)
				}
			}
			got := string(bytes.Join(out.pieces, nil))
			last := c.last
			if last == 0 { // cut by the limit: the rows that fit
				size := 0
				for last = c.first; last <= len(want) && size+len(want[last-1]) <= c.limit; last++ {
					size += len(want[last-1])
				}
				last--
				if next := fmt.Sprintf("hread f %d:%d\n", last+1, len(want)); !strings.HasSuffix(errb.String(), next) {
					t.Fatalf("notice %q does not continue with %q", errb.String(), next)
				}
			}
			if exp := strings.Join(want[c.first-1:last], ""); got != exp {
				t.Fatalf("output (%d bytes) is not rows %d-%d (%d bytes)", len(got), c.first, last, len(exp))
			}
		})
	}
}

// hread keeps nothing per row: printing a 20,000-row file allocates the
// file, one piece of output and a little more, not a slice of rows or an
// output buffer the size of the limit.
func TestHreadMemoryIsFilePlusOnePiece(t *testing.T) {
	dir := t.TempDir()
	rowsFile(t, dir, "f", 20000)
	fi, err := os.Stat(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	env := &privcmd.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Dir: dir, Limits: privcmd.Bounds("hread")}
	code := 0
	alloc := workspacetest.Allocated(func() { code = Run(context.Background(), env, []string{"hread", "f"}) })
	if code != privcmd.ExitTruncated {
		t.Fatalf("exit %d", code)
	}
	if bound := uint64(fi.Size()) + flushAt + 32<<10; alloc > bound {
		t.Fatalf("hread allocated %d bytes for a %d-byte file; want at most %d", alloc, fi.Size(), bound)
	}
}
