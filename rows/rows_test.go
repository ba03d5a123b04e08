package rows

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // text|term
	}{
		{"empty has no rows", "", nil},
		{"LF", "a\nb\n", []string{"a|\n", "b|\n"}},
		{"unterminated tail", "a\nb", []string{"a|\n", "b|"}},
		{"CRLF", "a\r\nb\r\n", []string{"a|\r\n", "b|\r\n"}},
		{"lone CR", "a\rb", []string{"a|\r", "b|"}},
		{"mixed and empty lines", "\n\r\n\r", []string{"|\n", "|\r\n", "|\r"}},
		{"CR then LF is one terminator", "x\r\n", []string{"x|\r\n"}},
		{"LF then CR is two", "x\n\ry", []string{"x|\n", "|\r", "y|"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := Split([]byte(tc.in))
			var got []string
			for i, r := range rs {
				if r.Num != i+1 {
					t.Fatalf("row %d numbered %d", i, r.Num)
				}
				got = append(got, string(r.Text)+"|"+string(r.Term))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("Split(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if n := Count(tc.in); n != len(tc.want) {
				t.Fatalf("Count(%q) = %d, want %d", tc.in, n, len(tc.want))
			}
		})
	}
}

func TestCut(t *testing.T) {
	tests := []struct{ in, text, term, rest string }{
		{"", "", "", ""},
		{"abc", "abc", "", ""},
		{"a\nb", "a", "\n", "b"},
		{"a\r\nb", "a", "\r\n", "b"},
		{"a\rb", "a", "\r", "b"},
		{"a\r", "a", "\r", ""},
		{"\n\r", "", "\n", "\r"},
	}
	for _, tc := range tests {
		text, term, rest := Cut(tc.in)
		if text != tc.text || term != tc.term || rest != tc.rest {
			t.Errorf("Cut(%q) = %q, %q, %q; want %q, %q, %q", tc.in, text, term, rest, tc.text, tc.term, tc.rest)
		}
	}
}

func TestAt(t *testing.T) {
	s := "a\r\nb\rc\n\nd"
	want := []int{1, 1, 1, 2, 2, 3, 3, 4, 5}
	x := NewIndex([]byte(s))
	for off, w := range want {
		if got := At(s, off); got != w {
			t.Errorf("At(%q, %d) = %d, want %d", s, off, got, w)
		}
		if got := x.At(off); got != w {
			t.Errorf("Index.At(%d) = %d, want %d", off, got, w)
		}
	}
	for _, off := range []int{-1, len(s), len(s) + 5} {
		if got, lin := x.At(off), At(s, off); got != lin {
			t.Errorf("off %d: Index.At %d, At %d", off, got, lin)
		}
	}
	if x.Count() != 5 {
		t.Errorf("Count = %d", x.Count())
	}
	if r, ok := x.Row(2); !ok || string(r.Text) != "b" || string(r.Term) != "\r" || r.Num != 2 {
		t.Errorf("Row(2) = %+v, %v", r, ok)
	}
	if _, ok := x.Row(6); ok {
		t.Error("Row(6) of 5 rows")
	}
	if NewIndex(nil).At(0) != 1 || At("", 0) != 1 {
		t.Error("an empty text is row 1")
	}
}

func TestHashIsFirstTwoBytesOfSHA256(t *testing.T) {
	// sha256("") = e3b0c442…, sha256("abc") = ba7816bf…
	for in, want := range map[string]string{"": "e3b0", "abc": "ba78"} {
		if got := Hash([]byte(in)); got != want {
			t.Errorf("Hash(%q) = %s, want %s", in, got, want)
		}
	}
	r := Row{Num: 12, Text: []byte("abc")}
	if got := r.Cite(); got != "12:ba78" {
		t.Errorf("Cite = %s", got)
	}
}

// The rows reassemble the input, none but the last lacks a terminator,
// no text holds one, and At and Index.At agree with the numbering.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\r\n\r", "x\r\ny\rz\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var joined []byte
		rs := Split(data)
		x := NewIndex(data)
		if x.Count() != len(rs) {
			t.Fatalf("Index.Count = %d, %d rows", x.Count(), len(rs))
		}
		for i, r := range rs {
			joined = append(joined, r.Text...)
			joined = append(joined, r.Term...)
			if strings.ContainsAny(string(r.Text), "\r\n") || len(r.Term) == 0 && i != len(rs)-1 {
				t.Fatalf("row %d = %q|%q", r.Num, r.Text, r.Term)
			}
			for off := len(joined) - len(r.Text) - len(r.Term); off < len(joined); off++ {
				if n := At(data, off); n != r.Num {
					t.Fatalf("At(%d) = %d, want %d", off, n, r.Num)
				}
				if n := x.At(off); n != r.Num {
					t.Fatalf("Index.At(%d) = %d, want %d", off, n, r.Num)
				}
			}
		}
		if string(joined) != string(data) {
			t.Fatalf("rows do not reassemble the input")
		}
	})
}
