package retain

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"testing"
)

func TestRows(t *testing.T) {
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
			rows := Rows([]byte(tc.in))
			var got []string
			for i, r := range rows {
				if r.Num != i+1 {
					t.Fatalf("row %d numbered %d", i, r.Num)
				}
				got = append(got, string(r.Text)+"|"+string(r.Term))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("Rows(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
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

func FuzzRows(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\r\n\r", "x\r\ny\rz\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var joined []byte
		for _, r := range Rows(data) {
			joined = append(joined, r.Text...)
			joined = append(joined, r.Term...)
		}
		if string(joined) != string(data) {
			t.Fatalf("rows do not reassemble the input")
		}
	})
}

func BenchmarkRows10k(b *testing.B) {
	data := []byte(strings.Repeat("func example(x int) int { return x * 2 }\n", 10000))
	b.ReportAllocs()
	for b.Loop() {
		if len(Rows(data)) != 10000 {
			b.Fatal("wrong row count")
		}
	}
}

// RowHasher is Hash for every line length around the block and padding
// boundaries, for bytes of every value, and for a hasher reused across
// lines of falling and rising length (a longer earlier line must leave
// nothing in the padding of a shorter one).
func TestRowHasherIsHash(t *testing.T) {
	h := NewRowHasher()
	if h.digest == nil {
		t.Fatal("the SHA-256 state could not be read; RowHasher fell back to Sum256")
	}
	check := func(line []byte) {
		t.Helper()
		var got [HashLen]byte
		h.Sum(line).Put(&got)
		if want := Hash(line); string(got[:]) != want {
			t.Fatalf("RowHasher(%d bytes %q) = %s, want %s", len(line), line, got, want)
		}
	}
	var lines [][]byte
	for n := 0; n <= 200; n++ {
		line := make([]byte, n)
		for i := range line {
			line[i] = byte(i*31 + n)
		}
		lines = append(lines, line)
	}
	for _, line := range lines {
		check(line)
	}
	for i := len(lines) - 1; i >= 0; i-- {
		check(lines[i])
	}
	check([]byte(strings.Repeat("\xff", 4096)))
}

func FuzzRowHasher(f *testing.F) {
	for _, s := range []string{"", "abc", strings.Repeat("x", 55), strings.Repeat("y", 56), strings.Repeat("z", 64), strings.Repeat("w", 119)} {
		f.Add([]byte(s), []byte("a longer line that came before it in the same file, 60 bytes"))
	}
	h := NewRowHasher()
	f.Fuzz(func(t *testing.T, line, before []byte) {
		var got [HashLen]byte
		h.Sum(before).Put(&got)
		h.Sum(line).Put(&got)
		if want := Hash(line); string(got[:]) != want {
			t.Fatalf("RowHasher(%q) after %d bytes = %s, want %s", line, len(before), got, want)
		}
	})
}

func BenchmarkRowHash10k(b *testing.B) {
	lines := make([][]byte, 10000)
	for i := range lines {
		lines[i] = []byte("line " + strconv.Itoa(i+1))
	}
	var dst [HashLen]byte
	b.Run("Sum256", func(b *testing.B) {
		for b.Loop() {
			for _, line := range lines {
				sum := sha256.Sum256(line)
				RowSum(sum[:2]).Put(&dst)
			}
		}
	})
	b.Run("RowHasher", func(b *testing.B) {
		h := NewRowHasher()
		for b.Loop() {
			for _, line := range lines {
				h.Sum(line).Put(&dst)
			}
		}
	})
}
