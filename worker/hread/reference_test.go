package hread

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"hpatch-router/worker/privcmd"
)

// refHread is hread on a file named f written the plain way, to check the
// real one against: lines split one by one, each hashed with
// sha256.Sum256, the window collected whole, then cut at the limit. lo and
// hi are the range's ends (0: open); ranged says a range was given.
func refHread(data []byte, lo, hi, limit int, ranged bool) (out, errs string, code int) {
	if !utf8.Valid(data) {
		return "", "hread: f is not UTF-8 text; hread shows text files only\n", 1
	}
	var lines []string
	for rest := string(data); rest != ""; {
		i := strings.IndexAny(rest, "\r\n")
		if i < 0 {
			lines = append(lines, rest)
			break
		}
		lines = append(lines, rest[:i])
		if strings.HasPrefix(rest[i:], "\r\n") {
			i++
		}
		rest = rest[i+1:]
	}
	lo = max(lo, 1)
	switch {
	case len(lines) == 0 && ranged:
		return "", fmt.Sprintf("hread: f is empty; there is no row %d\n", lo), 1
	case len(lines) == 0:
		return "", "", 0
	case lo > len(lines):
		return "", fmt.Sprintf("hread: start %d is past the end of f (%d rows)\n", lo, len(lines)), 1
	}
	last := len(lines)
	if hi != 0 {
		last = min(hi, last)
	}
	var b strings.Builder
	for n := lo; n <= last; n++ {
		sum := sha256.Sum256([]byte(lines[n-1]))
		row := fmt.Sprintf("%d:%s %s\n", n, hex.EncodeToString(sum[:2]), lines[n-1])
		switch {
		case b.Len()+len(row) <= limit:
			b.WriteString(row)
		case n == lo:
			return "", fmt.Sprintf("hread: row %d alone is longer than the %d-byte output limit; read it with other tools\n", n, limit), 1
		default:
			return b.String(), fmt.Sprintf("hread: output truncated after row %d of %d (%d-byte limit); continue with: hread f %d:%d\n",
				n-1, len(lines), limit, n, last), privcmd.ExitTruncated
		}
	}
	return b.String(), "", 0
}

// splits are the ways the tests run the printer: alone, as in production,
// and deciding at the window's second row, whatever its size, with room
// for 1, 3 or all rows, so the goroutine's stretch ends early, at the
// window's end or past it (TestAheadHashesTheRowsThePrinterTakes starts it
// at every offset).
var splits = []split{{}, defaultSplit(), {after: 1, rows: 1}, {after: 1, rows: 3}, {after: 1, rows: 1 << 20}}

// checkReference runs hread on data with every split and compares each
// with refHread.
func checkReference(t *testing.T, dir string, data []byte, lo, hi, limit int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"hread", "f"}
	ranged := lo > 0 || hi > 0
	if ranged {
		args = append(args, rangeArg(uint16(lo), uint16(hi)))
	}
	wantOut, wantErr, wantCode := refHread(data, lo, hi, limit, ranged)
	for _, s := range splits {
		var out, errb bytes.Buffer
		l := privcmd.Bounds("hread")
		l.Output = limit
		env := &privcmd.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir, Limits: l}
		code := run(context.Background(), env, args, s)
		if out.String() != wantOut || errb.String() != wantErr || code != wantCode {
			t.Fatalf("%d-byte file %.60q, args %q, limit %d, split %+v:\ngot  exit %d, %d bytes %.200q, stderr %q\nwant exit %d, %d bytes %.200q, stderr %q",
				len(data), data, args[1:], limit, s, code, out.Len(), out.String(), errb.String(), wantCode, len(wantOut), wantOut, wantErr)
		}
	}
}

// hread prints what the plain reference prints, byte for byte, however
// the rows are split between the printer and the second goroutine.
func TestHreadMatchesReference(t *testing.T) {
	dir := t.TempDir()
	var mixed, long strings.Builder
	terms := []string{"\n", "\r\n", "\r", "\n\r", "\r\r\n"}
	for i := range 3000 {
		fmt.Fprintf(&mixed, "row %d %s%s", i, strings.Repeat("é", i%7), terms[i%len(terms)])
		fmt.Fprintf(&long, "%s\n", strings.Repeat("long row ", i%50))
	}
	files := map[string]string{
		"empty":             "",
		"one unterminated":  "x",
		"LF":                "a\nb\nc\n",
		"CRLF, CR, LF mix":  "one\r\ntwo\rthree\nfour",
		"CR then LF rows":   "\r\n\r\r\n\n\r",
		"empty lines":       strings.Repeat("\n", 5000),
		"CRs only":          strings.Repeat("\r", 5000),
		"CRLFs only":        strings.Repeat("\r\n", 5000),
		"mixed terminators": mixed.String(),
		"long rows":         long.String(),
		"not UTF-8":         "ok\n\xff\xfe\n",
		"NUL bytes":         "\x00\x01binary\x00\n\x00",
		"one long row":      strings.Repeat("x", 100<<10),
	}
	limits := []int{OutputLimit, 4096, 100, 10}
	ranges := [][2]int{{0, 0}, {1, 0}, {0, 1}, {2, 3}, {7, 0}, {100, 2999}, {4999, 5001}, {10000, 0}}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			for _, limit := range limits {
				for _, r := range ranges {
					checkReference(t, dir, []byte(data), r[0], r[1], limit)
				}
			}
		})
	}
}

func FuzzHreadMatchesReference(f *testing.F) {
	f.Add([]byte("a\nb\r\nc\rd"), uint16(0), uint16(0), uint16(100))
	f.Add([]byte("one\n"), uint16(2), uint16(3), uint16(100))
	f.Add([]byte(strings.Repeat("x\r\n", 3000)), uint16(2), uint16(0), uint16(60000))
	f.Add([]byte(strings.Repeat("\r", 1000)), uint16(0), uint16(900), uint16(5000))
	f.Add([]byte("ok\n\xff\xfe\n"), uint16(1), uint16(1), uint16(100))
	f.Fuzz(func(t *testing.T, data []byte, lo, hi, limit uint16) {
		if lo > 0 && hi > 0 && lo > hi {
			return // a usage error, before any row
		}
		checkReference(t, t.TempDir(), data, int(lo), int(hi), int(limit))
	})
}
