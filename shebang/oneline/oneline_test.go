package oneline

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"python3", "python3"},
		{"/usr/bin/python3.12", "/usr/bin/python3.12"},
		{"-u", "-u"},
		{"a_b-c.d/e", "a_b-c.d/e"},
		{"", "''"},
		{"a b", "'a b'"},
		{"print(1)", "'print(1)'"},
		{"it's", `'it'\''s'`},
		{"'", `\'`},
		{"''", `\'\'`},
		{"'a'", `\''a'\'`},
		{"a''b", `'a'\'\''b'`},
		{`$HOME \ "q" !x`, `'$HOME \ "q" !x'`},
		{"~user", "'~user'"},
		{"=ls", "'=ls'"},
		{"a*b", "'a*b'"},
		{"é", "'é'"},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
		// RC_QUOTES: no two quote characters in a row inside one quoted
		// segment — every '' in the output is the empty word or crosses
		// an escaped quote.
		if q := Quote(c.in); q != "''" && strings.Contains(strings.ReplaceAll(q, `\'`, "E"), "''") {
			t.Errorf("Quote(%q) = %s has an empty '' segment", c.in, q)
		}
	}
}

func TestShowable(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"print('héllo — ✓ 😀 中文')\t$x \\", true},
		{"", true},
		{"a\nb", false},
		{"a\rb", false},
		{"\x01", false},
		{"\x1b[0m", false},
		{"\x7f", false},
		{"a\u0085b", false}, // C1 NEL
		{"a\u200bb", false}, // zero-width space
		{"a\u202eb", false}, // bidi override
		{"a\u2028b", false}, // line separator
		{"a\u2029b", false}, // paragraph separator
		{"a\ufeffb", false}, // BOM
		{"a\u00adb", false}, // soft hyphen
		{"a\u00a0b", false}, // no-break space
		{"\xff", false},
	} {
		if got := Showable(c.in); got != c.want {
			t.Errorf("Showable(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"import sys\nprint(1)\n", `import sys\nprint(1)\n`},
		{"a\\nb", `a\\nb`},
		{"a\r\nb\tc", `a\r\nb` + "\t" + `c`},
		{"\x00\x01\x1b\x7f", `\x00\x01\x1b\x7f`},
		{"é 😀 中", "é 😀 中"},
		{"a\u200bb", `a\xe2\x80\x8bb`},
		{"\u0085", `\xc2\x85`},
		{"'\"$`!", "'\"$`!"},
	} {
		got := Escape(c.in)
		if got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		if !Showable(got) {
			t.Errorf("Escape(%q) = %q is not showable", c.in, got)
		}
		if back, err := Unescape(got); err != nil || back != c.in {
			t.Errorf("Unescape(%q) = %q, %v; want %q", got, back, err, c.in)
		}
	}
}

func TestUnescapeRejectsOtherSpellings(t *testing.T) {
	for _, in := range []string{`\`, `a\`, `\t`, `\x`, `\x4`, `\x4G`, `\xAB`, `\0`, `\u00e9`, "\\\n", `\'`} {
		if got, err := Unescape(in); err == nil {
			t.Errorf("Unescape(%q) = %q, want an error", in, got)
		} else if strings.ContainsAny(err.Error(), "\r\n") {
			t.Errorf("Unescape(%q): error spans lines: %q", in, err)
		}
	}
}

func TestCommand(t *testing.T) {
	for _, c := range []struct {
		fields []string
		body   string
		want   string
	}{
		{[]string{"python3"}, "print(1)", "shell python3 'print(1)'"},
		{[]string{"python3"}, "import sys\nprint(1)\n", `shell -e python3 'import sys\nprint(1)\n'`},
		{[]string{"python3", "-u"}, "it's", `shell python3 -u 'it'\''s'`},
		{[]string{"bash"}, "", "shell bash ''"},
		{[]string{"bash"}, "ls", "shell bash ls"},
		{[]string{"bash"}, "echo 'a\\b'\n", `shell -e bash 'echo '\''a\\b'\''\n'`},
		{[]string{"/opt/py 3/bin/python3"}, "x", "shell '/opt/py 3/bin/python3' x"},
	} {
		got, err := Command(c.fields, c.body)
		if err != nil || got != c.want {
			t.Errorf("Command(%q, %q) = %s, %v; want %s", c.fields, c.body, got, err, c.want)
		}
	}
	for _, fields := range [][]string{nil, {""}, {"-e"}, {"python3", "a\x01"}, {"py\u200bthon"}, {"python3", "\xff"}} {
		if got, err := Command(fields, "x"); err == nil {
			t.Errorf("Command(%q) = %s, want an error", fields, got)
		}
	}
}

func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args   []string
		fields []string
		body   string
	}{
		{[]string{"python3", "print(1)"}, []string{"python3"}, "print(1)"},
		{[]string{"-e", "python3", "-u", `a\nb\\`}, []string{"python3", "-u"}, "a\nb\\"},
		{[]string{"bash", `a\nb`}, []string{"bash"}, `a\nb`}, // not escaped without -e
		{[]string{"-e", "bash", ""}, []string{"bash"}, ""},
	} {
		fields, body, err := ParseArgs(c.args)
		if err != nil || !slices.Equal(fields, c.fields) || body != c.body {
			t.Errorf("ParseArgs(%q) = %q, %q, %v", c.args, fields, body, err)
		}
	}
	for _, args := range [][]string{nil, {"bash"}, {"-e", "bash"}, {"-e"}, {"-e", "bash", `\q`}} {
		if _, _, err := ParseArgs(args); err == nil {
			t.Errorf("ParseArgs(%q) accepted", args)
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "print(1)", "a\nb\r\n", "it's '' \\x41 \\\\n", "\x01\x7f\u200b\u2028é😀", "\xff\xfe", "-e", "\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !utf8.ValidString(body) || strings.IndexByte(body, 0) >= 0 {
			return // Translate rejects these before rendering
		}
		cmd, err := Command([]string{"python3"}, body)
		if err != nil {
			t.Fatalf("Command(%q): %v", body, err)
		}
		if strings.ContainsAny(cmd, "\r\n") || !Showable(cmd) {
			t.Fatalf("command for %q is not one showable line: %q", body, cmd)
		}
		if got, err := Unescape(Escape(body)); err != nil || got != body {
			t.Fatalf("Unescape(Escape(%q)) = %q, %v", body, got, err)
		}
		args := splitQuoted(t, strings.TrimPrefix(cmd, "shell "))
		fields, got, err := ParseArgs(args)
		if err != nil || got != body || !slices.Equal(fields, []string{"python3"}) {
			t.Fatalf("command %q decodes to %q %q, %v; want %q", cmd, fields, got, err, body)
		}
	})
}

// splitQuoted reads the words Command writes, as a POSIX shell does:
// bare words, '…' segments and \' between them (the shells themselves
// read them in package shebang's semantic tests).
func splitQuoted(t *testing.T, s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				t.Fatalf("unterminated quote in %q", s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\':
			i++
			w.WriteByte(s[i])
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// FuzzUnescape: the helper's decoder never panics, and what it accepts
// round-trips through the encoder.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{"", `a\nb`, `\\`, `\x00\xff`, `\`, `\x4`, `\q`, "raw\nline", `\xAB`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		x, err := Unescape(s)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		if back, err := Unescape(Escape(x)); err != nil || back != x {
			t.Fatalf("Unescape(Escape(%q)) = %q, %v", x, back, err)
		}
	})
}
