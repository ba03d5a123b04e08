package hgrep

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/rows"
	"hpatch-router/worker/internal/workspacetest"
	"hpatch-router/worker/privcmd"
)

// Named paths rg would block on or read without end are refused before rg
// starts; inside a searched directory rg skips them itself.
func TestRunRefusesNamedSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	workspacetest.SpecialFiles(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"needle", "fifo"}, "hgrep: fifo is a named pipe, not a file or directory; hgrep searches files\n"},
		{[]string{"needle", "a.txt", "sock"}, "hgrep: sock is a socket, not a file or directory; hgrep searches files\n"},
		{[]string{"needle", "zero"}, "hgrep: zero is a character device, not a file or directory; hgrep searches files\n"},
		{[]string{"needle", "/dev/zero"}, "hgrep: /dev/zero is a character device, not a file or directory; hgrep searches files\n"},
		{[]string{"-f", "fifo", "a.txt"}, "hgrep: fifo is a named pipe, not a file or directory; hgrep searches files\n"},
		{[]string{"--ignore-file=fifo", "needle"}, "hgrep: fifo is a named pipe, not a file or directory; hgrep searches files\n"},
	}
	for _, c := range cases {
		out, errOut, code := hgrepIn(t, dir, append([]string{"hgrep"}, c.args...)...)
		if out != "" || errOut != c.err || code != 2 {
			t.Errorf("%v: exit %d stdout %q stderr %q", c.args, code, out, errOut)
		}
	}
	// The directory holding them is searched; rg passes them by.
	out, errOut, code := hgrepIn(t, dir, "hgrep", "needle")
	if want := `"a.txt":1:` + rows.Hash([]byte("needle")) + " needle\n"; out != want || errOut != "" || code != 0 {
		t.Errorf("directory: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// fakeRg puts an rg on a fresh PATH that prints script's output.
func fakeRg(t *testing.T, script string) []string {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "rg"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + bin}
}

// A search still running at the time limit is stopped: the rows rg had
// reported are printed (verified), then one notice, status 124.
func TestRunTimeLimit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "slow.txt"), []byte("needle\nmore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	environ := fakeRg(t, `printf '%s\n' '{"type":"begin","data":{"path":{"text":"slow.txt"}}}' \
  '{"type":"match","data":{"path":{"text":"slow.txt"},"lines":{"text":"needle\n"},"line_number":1,"absolute_offset":0,"submatches":[]}}'
exec `+sleep+` 600
`)
	var out, errb strings.Builder
	env := newEnv(dir, &out, &errb, environ)
	env.Limits.Time = 300 * time.Millisecond
	code := Run(t.Context(), env, []string{"hgrep", "needle", "slow.txt"})
	want := `"slow.txt":1:` + rows.Hash([]byte("needle")) + " needle\n"
	if code != 124 || out.String() != want ||
		errb.String() != "hgrep: stopped at the 300ms time limit after 1 rows; narrow the pattern or the paths\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out.String(), errb.String())
	}
}

// line50MB writes a 50 MB line holding "needle" once, at its end.
func line50MB(t *testing.T, dir string) {
	t.Helper()
	data := append(bytes.Repeat([]byte("a"), 50<<20), "needle\n"...)
	if err := os.WriteFile(filepath.Join(dir, "line.txt"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rg's message for a 50 MB line is skipped, not gathered: the line could
// never be printed as a row, and hgrep's memory stays near its buffers.
func TestRunSkipsLinesTooLongToPrint(t *testing.T) {
	dir := t.TempDir()
	line50MB(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "short.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut string
	var code int
	alloc := workspacetest.Allocated(func() { out, errOut, code = hgrepIn(t, dir, "hgrep", "--sort=path", "needle") })
	want := `"short.txt":1:` + rows.Hash([]byte("needle")) + " needle\n"
	if code != 0 || out != want || errOut != "hgrep: skipped 1 line(s) too long to print: they cannot be cited as rows\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if alloc > 32<<20 {
		t.Fatalf("allocated %d MiB for a 50 MB line", alloc>>20)
	}
}

// rg runs with its data segment capped and without mapping files (which
// would not count); running out says so in one line.
func TestRunMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	line50MB(t, dir)
	l := privcmd.Bounds("hgrep")
	l.Memory = 16 << 20
	testenv.NeedTool(t, "rg")
	out, errOut, code := workspacetest.RunWith(t, Run, dir, l, "hgrep", "needle", "line.txt")
	if code != 1 || out != "" ||
		errOut != "hgrep: ripgrep ran out of its 16 MiB memory limit after 0 rows (a huge line?); narrow the paths or add --max-filesize\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// A file with more matching lines than the output can hold is not
// gathered whole: hgrep stops rg once the rows it holds fill the output.
func TestRunManyMatchesStopEarly(t *testing.T) {
	dir := t.TempDir()
	const lines = 1_000_000
	if err := os.WriteFile(filepath.Join(dir, "many.txt"), bytes.Repeat([]byte("needle\n"), lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut string
	var code int
	alloc := workspacetest.Allocated(func() { out, errOut, code = hgrepIn(t, dir, "hgrep", "needle", "many.txt") })
	keys := checkRows(t, dir, out)
	want := fmt.Sprintf("hgrep: output truncated at %d bytes after %d rows (no row was cut); narrow the pattern or the paths\n", privcmd.HgrepOutput, len(keys))
	if code != privcmd.ExitTruncated || errOut != want || len(keys) < 1000 {
		t.Fatalf("exit %d, %d rows, stderr %q", code, len(keys), errOut)
	}
	// Measured: 16 MiB (the 7 MB file read back to verify rows, decoding
	// the messages of the rows shown). Gathering every hit would cost
	// over 100 bytes a line, 100 MiB for these.
	if alloc > 64<<20 {
		t.Fatalf("allocated %d MiB for %d matching lines", alloc>>20, lines)
	}
}

// Rows from a file that grows while rg reads it are rows of the file: a
// line rg read while it was being written is not one.
func TestRunGrowingFile(t *testing.T) {
	dir := t.TempDir()
	workspacetest.Grow(t, filepath.Join(dir, "log"), 500_000, func(i int) string { return fmt.Sprintf("needle %06d", i) })
	for range 5 {
		out, errOut, code := hgrepIn(t, dir, "hgrep", "needle", "log")
		if code != 0 && code != privcmd.ExitTruncated {
			t.Fatalf("exit %d stderr %q", code, errOut)
		}
		checkRows(t, dir, out)
	}
}

// FuzzStream: whatever rg prints, hgrep's reader prints only rows verified
// against the file, within the output bound, and holds no message longer
// than maxMessage (the seeds include one of 300 KB against a 64-byte
// bound's 68 KB).
func FuzzStream(f *testing.F) {
	dir := f.TempDir()
	content := "needle one\r\nsecond\rneedle three\nlast"
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(content), 0o644); err != nil {
		f.Fatal(err)
	}
	msg := func(typ, lines string, line, off int) string {
		return fmt.Sprintf(`{"type":%q,"data":{"path":{"text":"a.txt"},"lines":{"text":%q},"line_number":%d,"absolute_offset":%d}}`+"\n", typ, lines, line, off)
	}
	begin := `{"type":"begin","data":{"path":{"text":"a.txt"}}}` + "\n"
	end := `{"type":"end","data":{"path":{"text":"a.txt"},"binary_offset":null}}` + "\n"
	f.Add([]byte(begin+msg("match", "needle one\r\n", 1, 0)+msg("context", "second\rneedle three\n", 2, 12)+end), 4096)
	f.Add([]byte(begin+msg("match", "last", 3, 33)+end), 64)
	f.Add([]byte(begin+msg("match", strings.Repeat("x", 300<<10)+"\n", 1, 0)+msg("match", "needle one\r\n", 1, 0)+end), 64)
	f.Add([]byte(begin+`{"type":"match","data":{"path":{"bytes":"YS50eHQ="},"lines":{"bytes":"/w=="},"line_number":1,"absolute_offset":0}}`+"\n"), 100)
	f.Add([]byte("not json\n"), 100)
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		limit = max(1, limit%(64<<10))
		var w bytes.Buffer
		out := &output{w: &w, limit: limit}
		l := privcmd.Bounds("hgrep")
		l.Output = limit
		if _, err := stream(bytes.NewReader(data), dir, false, out, l); err == nil && out.flush() != nil {
			t.Fatal("flush failed")
		}
		if w.Len() > limit {
			t.Fatalf("%d bytes of rows over the %d-byte bound", w.Len(), limit)
		}
		checkRows(t, dir, w.String())
	})
}
