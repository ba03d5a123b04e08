package hgrep

import (
	"bytes"
	"hpatch-router/rows"
	"hpatch-router/worker/internal/workspacetest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// rgHits splits data the way ripgrep reports lines: on LF only, with
// terminators, numbered from 1, with byte offsets.
func rgHits(data []byte) []hit {
	var hits []hit
	off := 0
	for n := 1; off < len(data); n++ {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off + 1
		}
		hits = append(hits, hit{line: n, offset: off, text: data[off:end]})
		off = end
	}
	return hits
}

func TestVerifiedRowsSameWhetherReadWholeOrByOffset(t *testing.T) {
	dir := workspacetest.Copy(t)
	files := map[string]string{
		"crlf.txt":     "a\r\nb\r\nc",
		"lonecr.txt":   "a\rb\nc\rd\n",
		"finalcr.txt":  "a\nb\r",
		"plain.txt":    "one\ntwo\nthree\n",
		"changed.txt":  "x\n",
		"utf8-bad.txt": "ok\n\xff\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			hits := rgHits([]byte(data))
			if name == "changed.txt" {
				hits = []hit{{line: 1, offset: 0, text: []byte("y\n")}} // the file changed since rg read it
			}
			var cWhole, cParts counts
			whole := verifiedRows(dir, name, hits, nil, &cWhole, 1<<40, 1<<40)
			parts := verifiedRows(dir, name, hits, nil, &cParts, 0, 1<<40)
			if !reflect.DeepEqual(whole, parts) || cWhole != cParts {
				t.Fatalf("whole %v %+v, by offset %v %+v", whole, cWhole, parts, cParts)
			}
			fileRows := rows.Split([]byte(data))
			for _, r := range whole {
				if string(fileRows[r.num-1].Text) != string(r.text) {
					t.Fatalf("row %d %q, file has %q", r.num, r.text, fileRows[r.num-1].Text)
				}
			}
			if name == "changed.txt" && (len(whole) != 0 || cWhole.unverified != 1) {
				t.Fatalf("a changed line must not be a row: %v %+v", whole, cWhole)
			}
		})
	}
}

// rg ends a line without LF only at the end of the file it read; when the
// file has grown since, that line was cut mid-write and is no row, whether
// the file is read whole or by offset.
func TestVerifiedRowsDropsALineCutByGrowth(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "log"), []byte("needle 1\nneedle 123456\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hits := []hit{{line: 1, offset: 0, text: []byte("needle 1\n")}, {line: 2, offset: 9, text: []byte("needle 12")}}
	for _, big := range []int64{1 << 40, 0} {
		var c counts
		got := verifiedRows(dir, "log", hits, nil, &c, big, 1<<40)
		if len(got) != 1 || string(got[0].text) != "needle 1" || c.unverified != 1 {
			t.Fatalf("big=%d: rows %v, counts %+v", big, got, c)
		}
	}
	// At the end of the file an unterminated line is a row.
	if err := os.WriteFile(filepath.Join(dir, "log"), []byte("needle 1\nneedle 123456"), 0o644); err != nil {
		t.Fatal(err)
	}
	hits[1].text = []byte("needle 123456")
	for _, big := range []int64{1 << 40, 0} {
		var c counts
		if got := verifiedRows(dir, "log", hits, nil, &c, big, 1<<40); len(got) != 2 || c != (counts{}) {
			t.Fatalf("big=%d: rows %v, counts %+v", big, got, c)
		}
	}
}
