package bashquote

import "testing"

func TestWord(t *testing.T) {
	for in, want := range map[string]string{
		"plain":      "plain",
		"a b":        "'a b'",
		"it's":       `"it's"`,
		"line\nfeed": `$'line\nfeed'`,
		"":           "''",
	} {
		got, err := Word(in)
		if err != nil || got != want {
			t.Errorf("Word(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := Word("nul\x00"); err == nil {
		t.Error("a NUL byte was quoted")
	}
}
