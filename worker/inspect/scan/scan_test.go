package scan

import "testing"

func TestQuoted(t *testing.T) {
	tests := []struct {
		src    string
		end    int
		closed bool
	}{
		{`"abc" x`, 5, true},
		{`'a\'b' x`, 6, true},
		{`"a\\" x`, 5, true},
		{"'a\\\r\nb' x", 7, true}, // a backslash before CRLF continues the string
		{"'a\\\nb' x", 6, true},
		{"'ab\nc'", 3, false}, // an unescaped line break ends it, unterminated
		{"'ab\rc'", 3, false},
		{`"ab`, 3, false},
		{`"ab\`, 4, false},
		{`"it's"`, 6, true},
	}
	for _, tc := range tests {
		end, closed := Quoted(tc.src, 0)
		if end != tc.end || closed != tc.closed {
			t.Errorf("Quoted(%q) = %d, %v; want %d, %v", tc.src, end, closed, tc.end, tc.closed)
		}
	}
}

func TestLineEnd(t *testing.T) {
	for _, tc := range []struct {
		src        string
		from, want int
	}{{"// c\nx", 0, 4}, {"# c\r\nx", 1, 3}, {"no end", 2, 6}, {"\n", 0, 0}} {
		if got := LineEnd(tc.src, tc.from); got != tc.want {
			t.Errorf("LineEnd(%q, %d) = %d, want %d", tc.src, tc.from, got, tc.want)
		}
		if got := LineEnd([]byte(tc.src), tc.from); got != tc.want {
			t.Errorf("LineEnd([]byte %q, %d) = %d, want %d", tc.src, tc.from, got, tc.want)
		}
	}
}
