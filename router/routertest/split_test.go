package routertest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitKeepsRunesWhole(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want int
	}{
		{"", 3, 0},
		{"abc", 0, 1},
		{"abcdef", 3, 3},
		{"ab", 5, 2},
		{"ééé", 2, 2},
		{"日本語テキスト", 4, 4},
	}
	for _, tt := range tests {
		got := split(tt.in, tt.n)
		if len(got) != tt.want || strings.Join(got, "") != tt.in {
			t.Errorf("split(%q, %d) = %q", tt.in, tt.n, got)
		}
		for _, p := range got {
			if !utf8.ValidString(p) {
				t.Errorf("split(%q, %d): piece %q cuts a rune", tt.in, tt.n, p)
			}
		}
	}
}

func TestParseSSE(t *testing.T) {
	stream := ": keep-alive\n\nevent: a\ndata: {\"type\":\"a\",\ndata: \"x\":1}\r\n\r\ndata: {\"type\":\"b\"}\n\n"
	evs, err := ParseSSE(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Name != "a" || string(evs[0].Data) != "{\"type\":\"a\",\n\"x\":1}" || evs[1].Type() != "b" || evs[1].Seq() != -1 {
		t.Errorf("events: %+v", evs)
	}
	if _, err := ParseSSE(strings.NewReader("garbage\n")); err == nil {
		t.Error("a malformed line was accepted")
	}
}
