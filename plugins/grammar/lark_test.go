package grammar

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestCheckLarkAcceptsHpatch(t *testing.T) {
	src, err := os.ReadFile("../hpatch.lark")
	if err != nil {
		t.Fatal(err)
	}
	if p := CheckLark(string(src)); len(p) != 0 {
		t.Fatalf("hpatch.lark: %v", p)
	}
}

func TestCheckLark(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // "LINE:substring", in order; none: valid
	}{
		{"valid", "start: expr\nexpr: NUMBER (\"+\" NUMBER)*\n    | \"(\" expr \")\"\nNUMBER: /[0-9]+/\n%ignore \" \"\n", nil},
		{"import and alias", "%import common.WS\n%import common (DIGIT, LETTER)\nstart: LETTER DIGIT -> pair\n%ignore WS\n", nil},
		{"template and priority", "start: _sep{item, \",\"}\n_sep{x, sep}: x (sep x)*\nitem.2: ITEM\nITEM.-1: /a/i\n", nil},
		{"comment and range", "// a comment\nstart: \"a\"..\"z\" // trailing\n", nil},
		{"undefined", "start: foo BAR\n", []string{"1:rule foo is used", "1:terminal BAR is used"}},
		{"no start", "expr: \"x\"\n", []string{"0:no start rule"}},
		{"unbalanced", "start: (\"a\" | \"b\"\nx: \"c\")\n", []string{"1:\"(\" is never closed", "2:\")\" closes no open"}},
		{"stray close", "start: \"a\" ]\n", []string{"1:\"]\" closes no open"}},
		{"lookahead", "start: A\nA: /a(?=b)/\n", []string{"2:lookahead"}},
		{"backreference", "start: A\nA: /(a)\\1/\n", []string{"2:backreference"}},
		{"bad regex", "start: A\nA: /a[/\n", []string{"2:does not compile"}},
		{"verbose flag", "start: A\nA: /a b/x\n", []string{"2:verbose flag"}},
		{"open string", "start: \"abc\n", []string{"1:does not close"}},
		{"twice", "start: \"a\"\nstart: \"b\"\n", []string{"2:defined again (first on line 1)"}},
		{"no colon", "start \"a\"\n", []string{"1:has no ':'", "0:no start rule"}},
		{"unknown directive", "start: \"a\"\n%frobnicate x\n", []string{"2:unknown directive"}},
	}
	for _, tc := range tests {
		got := CheckLark(tc.src)
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i, w := range tc.want {
			line, sub, _ := strings.Cut(w, ":")
			if g := got[i]; strconv.Itoa(g.Line) != line || !strings.Contains(g.Msg, sub) {
				t.Errorf("%s: problem %d = %d: %s, want %s", tc.name, i, g.Line, g.Msg, w)
			}
		}
	}
}

func TestCheckRegex(t *testing.T) {
	for re, want := range map[string]string{
		`[a-z]+(\.[a-z]+)*`: "",
		`(?P<x>a)`:          "",
		`a(?!b)`:            "negative lookahead",
		`(?<=a)b`:           "lookbehind",
		`a\Z`:               `\z`,
		`a{`:                "",
		`(a`:                "does not compile",
	} {
		err := CheckRegex(re)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("CheckRegex(%q) = %v, want %q", re, err, want)
		}
	}
}
