package rows

import "testing"

func TestOneLineSpaced(t *testing.T) {
	for in, want := range map[string]string{
		"":           "",
		"plain":      "plain",
		"a\nb":       "a b",
		"a\r\nb":     "a b",
		"a\rb":       "a b",
		"a\n\nb\r":   "a  b ",
		"x\r\r\ny":   "x  y",
		"tab\tstays": "tab\tstays",
	} {
		if got := OneLineSpaced(in); got != want {
			t.Errorf("OneLineSpaced(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOneLineEscaped(t *testing.T) {
	for in, want := range map[string]string{
		"":          "",
		"plain":     "plain",
		"a\nb":      `a\nb`,
		"a\r\nb":    `a\r\nb`,
		"a\rb":      `a\rb`,
		`a\nb`:      `a\nb`,
		"tab\tstay": "tab\tstay",
	} {
		if got := OneLineEscaped(in); got != want {
			t.Errorf("OneLineEscaped(%q) = %q, want %q", in, got, want)
		}
	}
}
