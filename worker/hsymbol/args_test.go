//go:build linux

package hsymbol

import (
	"reflect"
	"strings"
	"testing"

	"hpatch-router/worker/inspect/outline"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		want   request
		errSub string
	}{
		{name: "def with row and symbol", args: []string{"def", "a.go", "12:a3f0", "Foo"},
			want: request{op: "def", path: "a.go", line: 12, hash: "a3f0", symbol: "Foo"}},
		{name: "refs with N", args: []string{"refs", "a.go", "1:0000", "x", "2"},
			want: request{op: "refs", path: "a.go", line: 1, hash: "0000", symbol: "x", nth: 2}},
		{name: "unknown operation", args: []string{"find", "a.go", "1:0000", "x"}, errSub: `unknown operation "find"`},
		{name: "too few arguments", args: []string{"def", "a.go", "1:0000"}, errSub: "usage: hsymbol def|refs"},
		{name: "row without hash", args: []string{"def", "a.go", "12", "x"}, errSub: "not LINE:HASH"},
		{name: "row with uppercase hash", args: []string{"def", "a.go", "12:A3F0", "x"}, errSub: "not LINE:HASH"},
		{name: "row zero", args: []string{"def", "a.go", "0:a3f0", "x"}, errSub: "not LINE:HASH"},
		{name: "N not positive", args: []string{"def", "a.go", "1:a3f0", "x", "0"}, errSub: "not a positive occurrence"},
		{name: "symbol with space", args: []string{"def", "a.go", "1:a3f0", "a b"}, errSub: "not one token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseArgs(tc.args)
			if tc.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSub) {
					t.Fatalf("err %v, want %q", err, tc.errSub)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
	}
}

func TestVerifyRow(t *testing.T) {
	data := []byte("package p\r\nfunc A() {}\rvar x = 1\n")
	tests := []struct {
		name   string
		row    string
		text   string
		errSub string
	}{
		{name: "CRLF row hashes without CR", row: "1:" + hashOf("package p"), text: "package p"},
		{name: "lone CR ends a row", row: "2:" + hashOf("func A() {}"), text: "func A() {}"},
		{name: "stale hash names the current row", row: "3:ffff", errSub: "row 3:ffff is stale: line 3 is now 3:" + hashOf("var x = 1")},
		{name: "row past the end is stale", row: "4:ffff", errSub: "has 3 lines"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := parseArgs([]string{"def", "f.go", tc.row, "x"})
			if err != nil {
				t.Fatal(err)
			}
			text, err := verifyRow(data, req)
			if tc.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSub) {
					t.Fatalf("err %v, want %q", err, tc.errSub)
				}
				return
			}
			if err != nil || string(text) != tc.text {
				t.Fatalf("text %q err %v", text, err)
			}
		})
	}
}

func TestOccurrences(t *testing.T) {
	tests := []struct {
		name   string
		lang   string
		line   string
		symbol string
		want   []int
	}{
		{name: "Go: identifiers only, not strings or comments", lang: "go",
			line: `x := f("x") + x // x`, symbol: "x", want: []int{0, 14}},
		{name: "Go: selector parts are tokens", lang: "go", line: `c.Add(c.total)`, symbol: "c", want: []int{0, 6}},
		{name: "Go: no partial identifiers", lang: "go", line: `counter := count`, symbol: "count", want: []int{11}},
		{name: "Go: raw string skipped", lang: "go", line: "s := `s` + s", symbol: "s", want: []int{0, 11}},
		{name: "Python: # comment ends the line", lang: "python", line: `a = a + "a" # a`, symbol: "a", want: []int{0, 4}},
		{name: "TypeScript: $ is part of identifiers", lang: "typescript", line: `$a = a + '$a'`, symbol: "a", want: []int{5}},
		{name: "JavaScript: // comment ends the line", lang: "javascript", line: `f(f) // f`, symbol: "f", want: []int{0, 2}},
		{name: "non-ASCII identifiers", lang: "python", line: `ä = äb + ä`, symbol: "ä", want: []int{0, 11}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := occurrences(tc.lang, []byte(tc.line), tc.symbol); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestUTF16Column(t *testing.T) {
	line := []byte("é😀x")
	if got := utf16Column(line, strings.Index(string(line), "x")); got != 3 {
		t.Fatalf("got %d, want 3 (é is 1 unit, 😀 is 2)", got)
	}
}

func TestPick(t *testing.T) {
	r := request{op: "def", path: "a.go", line: 3, hash: "abcd", symbol: "c"}
	if _, err := pick(nil, r); err == nil || !strings.Contains(err.Error(), "does not occur as a token") {
		t.Fatalf("no occurrence: %v", err)
	}
	if _, err := pick([]int{1, 5}, r); err == nil || !strings.Contains(err.Error(), "add N (1..2)") {
		t.Fatalf("ambiguous without N must name N: %v", err)
	}
	r.nth = 3
	if _, err := pick([]int{1, 5}, r); err == nil || !strings.Contains(err.Error(), "out of range 1..2") {
		t.Fatalf("N out of range: %v", err)
	}
	r.nth = 2
	if col, err := pick([]int{1, 5}, r); err != nil || col != 5 {
		t.Fatalf("N=2: %d %v", col, err)
	}
}

func TestDeclaration(t *testing.T) {
	entries := []outline.Entry{
		{Kind: outline.KindFunction, Name: "f", Start: 10, End: 20, NameLine: 10},
		{Kind: outline.KindClass, Name: "C", Start: 30, End: 40, NameLine: 32}, // decorators on 30-31
	}
	tests := []struct {
		name     string
		symbol   string
		n        int
		from, to int
	}{
		{name: "name row expands to the declaration", symbol: "f", n: 10, from: 10, to: 20},
		{name: "a local of the same name inside does not expand", symbol: "f", n: 15, from: 15, to: 15},
		{name: "decorated class: name row below the span start", symbol: "C", n: 32, from: 30, to: 40},
		{name: "unknown symbol stays one row", symbol: "g", n: 10, from: 10, to: 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if from, to := declaration(entries, tc.symbol, tc.n); from != tc.from || to != tc.to {
				t.Fatalf("got %d-%d", from, to)
			}
		})
	}
}
