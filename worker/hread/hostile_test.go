package hread

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/rows"
	"hpatch-router/worker/internal/workspacetest"
	"hpatch-router/worker/privcmd"
)

// Files that are not files, or too big to read, are refused with one line
// and without being read; none of these may block.
func TestHreadHostileFiles(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	workspacetest.SpecialFiles(t, dir)
	must(os.WriteFile(filepath.Join(dir, "small"), []byte(strings.Repeat("x\n", 100)), 0o644))
	tiny := privcmd.Bounds("hread")
	tiny.Input = 199
	cases := []struct {
		name   string
		limits privcmd.Limits
		args   []string
		err    string
	}{
		{"FIFO with no writer", privcmd.Limits{}, []string{"fifo"}, "hread: fifo is not a regular file (a named pipe); hread reads files only\n"},
		{"socket", privcmd.Limits{}, []string{"sock"}, "hread: sock is not a regular file (a socket); hread reads files only\n"},
		{"/dev/zero through a link", privcmd.Limits{}, []string{"zero"}, "hread: zero is not a regular file (a character device); hread reads files only\n"},
		{"/dev/zero", privcmd.Limits{}, []string{"/dev/zero", "1:1"}, "hread: /dev/zero is not a regular file (a character device); hread reads files only\n"},
		{"1 TiB sparse file", privcmd.Limits{}, []string{"sparse", "1:1"},
			"hread: sparse is 1099511627776 bytes, over hread's 64 MiB input limit; find rows with hgrep PATTERN sparse, or print a part with sed -n 'START,ENDp' sparse\n"},
		{"one byte over the input limit", tiny, []string{"small"},
			"hread: small is 200 bytes, over hread's 199 bytes input limit; find rows with hgrep PATTERN small, or print a part with sed -n 'START,ENDp' small\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := c.limits
			if l == (privcmd.Limits{}) {
				l = privcmd.Bounds("hread")
			}
			out, errs, code := runWith(t, dir, nil, l, c.args...)
			if out != "" || errs != c.err || code != 1 {
				t.Fatalf("got out %q err %q code %d", out, errs, code)
			}
		})
	}
	tiny.Input = 200
	if out, errs, code := runWith(t, dir, nil, tiny, "small", "100:"); out != "100:2d71 x\n" || errs != "" || code != 0 {
		t.Fatalf("at the input limit: out %q err %q code %d", out, errs, code)
	}
}

// A file at the time limit stops with one notice and status 124.
func TestHreadTimeLimit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := privcmd.Bounds("hread")
	l.Time = 1 // 1 ns: over before the first chunk is read
	out, errs, code := runWith(t, dir, nil, l, "f")
	want := "hread: stopped reading f at the 1ns time limit; the file is on slow storage: copy it or read a part with sed -n 'START,ENDp' f\n"
	if out != "" || errs != want || code != 124 {
		t.Fatalf("got out %q err %q code %d", out, errs, code)
	}
}

// Rows are counted, not held: a file of empty lines costs its own size
// and one page of rows, not 56 bytes a row (which for the 64 MiB input
// limit would be 3.5 GiB).
func TestHreadMemoryDoesNotGrowWithRows(t *testing.T) {
	dir := t.TempDir()
	const size = 16 << 20
	if err := os.WriteFile(filepath.Join(dir, "empty-lines"), []byte(strings.Repeat("\n", size)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs string
	var code int
	alloc := workspacetest.Allocated(func() { out, errs, code = runIn(t, dir, nil, OutputLimit, "empty-lines") })
	if code != privcmd.ExitTruncated || !strings.HasPrefix(out, "1:e3b0 \n") || !strings.Contains(errs, fmt.Sprintf("of %d", size)) {
		t.Fatalf("code %d, out %.100q…, err %q", code, out, errs)
	}
	if alloc > 2*size {
		t.Fatalf("allocated %d bytes for a %d-byte file", alloc, size)
	}
}

// A file that grows while hread reads it gives the rows of one snapshot:
// every printed row is the row the file has at that number, and only the
// last may be a line still being written.
func TestHreadGrowingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	line := func(i int) string { return fmt.Sprintf("line %06d of a log that keeps growing", i) }
	workspacetest.Grow(t, path, 1_000_000, line) // 40 MB, inside the input limit
	for range 20 {
		out, errs, code := runIn(t, dir, nil, OutputLimit, "log", "1:")
		if code != 0 && code != privcmd.ExitTruncated {
			t.Fatalf("code %d err %q", code, errs)
		}
		rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for i, r := range rows {
			if r == "" {
				continue
			}
			_, text, _ := strings.Cut(r, " ")
			want := line(i + 1)
			if text != want && (i != len(rows)-1 || !strings.HasPrefix(want, text)) {
				t.Fatalf("row %d is %q, want %q (or a prefix of it as the last row)", i+1, text, want)
			}
		}
	}
}

// FuzzHread: whatever the file and the range, hread prints whole rows of
// the file, numbered from the range's start, within the output bound (a
// cut read exits privcmd.ExitTruncated with one notice), or refuses with one line.
func FuzzHread(f *testing.F) {
	f.Add([]byte("a\nb\r\nc\rd"), uint16(0), uint16(0), uint16(100))
	f.Add([]byte("one\n"), uint16(2), uint16(3), uint16(100))
	f.Add(bytes.Repeat([]byte("x"), 100<<10), uint16(1), uint16(1), uint16(5000))
	f.Add(bytes.Repeat([]byte("\n"), 1<<20), uint16(7), uint16(0), uint16(64))
	f.Add([]byte("ok\n\xff\xfe\n"), uint16(1), uint16(1), uint16(100))
	f.Add([]byte("\x00\x01binary\x00"), uint16(0), uint16(0), uint16(100))
	f.Fuzz(func(t *testing.T, data []byte, lo, hi, limit uint16) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"f"}
		if lo > 0 || hi > 0 {
			args = append(args, rangeArg(lo, hi))
		}
		out, errs, code := runIn(t, dir, nil, int(limit), args...)
		if code != 0 && code != privcmd.ExitTruncated || errs != "" { // a refusal or a notice: one line
			if !strings.HasPrefix(errs, "hread: ") || strings.Count(errs, "\n") != 1 || code != privcmd.ExitTruncated && out != "" {
				t.Fatalf("exit %d: out %q err %q", code, out, errs)
			}
		}
		if code != 0 && code != privcmd.ExitTruncated {
			return
		}
		all := rows.Split(data)
		next, size := max(int(lo), 1), 0
		for _, line := range strings.SplitAfter(out, "\n") {
			if line == "" {
				continue
			}
			size += len(line)
			want := all[next-1]
			if line != fmt.Sprintf("%d:%s %s\n", want.Num, rows.Hash(want.Text), want.Text) {
				t.Fatalf("row %q, want row %d %q", line, next, want.Text)
			}
			next++
		}
		if size > int(limit) {
			t.Fatalf("%d bytes of rows over the %d-byte bound", size, limit)
		}
	})
}

func rangeArg(lo, hi uint16) string {
	s := ":"
	if lo > 0 {
		s = fmt.Sprint(lo) + s
	}
	if hi > 0 {
		s += fmt.Sprint(hi)
	}
	return s
}
