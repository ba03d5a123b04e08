package privcmd

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A suggested command must paste back: the word a notice writes for a file
// name reads back, in a shell, as exactly that name, and stays on one line.
func TestWordPastesBack(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain path stays bare", "util/crlf.go", "util/crlf.go"},
		{"space is quoted", "my notes.md", "'my notes.md'"},
		{"quote and dollar", "it's $HOME.txt", `'it'\''s $HOME.txt'`},
		{"glob and semicolon", "a*;b", "'a*;b'"},
		{"retained script keeps its prefix bare", "@shell/call_1", "@shell/call_1"},
		{"retained id with a dollar", "@shell/a$b", "@shell/'a$b'"},
		{"non-ASCII", "résumé.md", "'résumé.md'"},
		{"line break: one line, Bash's $'…'", "a\nb", `$'a\nb'`},
		{"line break and quote", "big it's\nx", `$'big it\'s\nx'`},
		{"control byte", "a\tb\x01", `$'a\tb\x01'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Word(tc.in)
			if got != tc.want {
				t.Errorf("Word(%q) = %s, want %s", tc.in, got, tc.want)
			}
			if strings.ContainsAny(got, "\n\r") {
				t.Errorf("Word(%q) = %q spans lines", tc.in, got)
			}
			if back := readBack(t, got); back != tc.in {
				t.Errorf("a shell reads %s back as %q, want %q", got, back, tc.in)
			}
		})
	}
}

// readBack parses word as one shell word and expands it without an
// environment (quote removal included), as bash reads it in a command.
func readBack(t *testing.T, word string) string {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader("x "+word), "")
	if err != nil {
		t.Fatalf("%s does not parse: %v", word, err)
	}
	call := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if len(call.Args) != 2 {
		t.Fatalf("%s is %d words, want 1", word, len(call.Args)-1)
	}
	fields, err := expand.Fields(&expand.Config{}, call.Args[1])
	if err != nil || len(fields) != 1 {
		t.Fatalf("expand %s: %q %v", word, fields, err)
	}
	return fields[0]
}
