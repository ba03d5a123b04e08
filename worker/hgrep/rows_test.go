package hgrep

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"hpatch-router/retain"
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
	dir := workspace(t)
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
			rows := retain.Rows([]byte(data))
			for _, r := range whole {
				if string(rows[r.num-1].Text) != string(r.text) {
					t.Fatalf("row %d %q, file has %q", r.num, r.text, rows[r.num-1].Text)
				}
			}
			if name == "changed.txt" && (len(whole) != 0 || cWhole.unverified != 1) {
				t.Fatalf("a changed line must not be a row: %v %+v", whole, cWhole)
			}
		})
	}
}
