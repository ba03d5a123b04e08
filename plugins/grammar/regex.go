package grammar

import (
	"fmt"
	"regexp/syntax"
	"strings"
)

// Problem is one thing wrong with a grammar: Line is 1-based within the
// grammar text (0: the grammar as a whole), Msg says what is wrong and
// how to fix it, on one line.
type Problem struct {
	Line int
	Msg  string
}

// pythonOnly are constructs Python's re (Lark's regex) reads but Go's
// regexp and the API's engine cannot run, with how to name them.
var pythonOnly = []struct{ marker, what string }{
	{"(?=", "a lookahead (?=…)"},
	{"(?!", "a negative lookahead (?!…)"},
	{"(?<=", "a lookbehind (?<=…)"},
	{"(?<!", "a negative lookbehind (?<!…)"},
	{"(?P=", "a named backreference (?P=…)"},
	{"(?>", "an atomic group (?>…)"},
	{"(?(", "a conditional (?(…)…)"},
	{"(?#", "a comment group (?#…)"},
	{`\Z`, `\Z (write \z)`},
}

// CheckRegex reports whether re compiles as the API will run it: RE2
// syntax, which Go's regexp implements. A Python-only construct is named.
func CheckRegex(re string) error {
	if _, err := syntax.Parse(re, syntax.Perl); err != nil {
		return explainRegex(re, err)
	}
	return nil
}

// explainRegex names the Python-only construct behind a compile error,
// or gives the compiler's own message.
func explainRegex(re string, err error) error {
	for _, p := range pythonOnly {
		if strings.Contains(re, p.marker) {
			return fmt.Errorf("uses %s, which Python accepts but the API's regex engine does not; rewrite it without", p.what)
		}
	}
	if hasBackreference(re) {
		return fmt.Errorf("uses a backreference (\\1…\\9), which the API's regex engine does not run; rewrite it without")
	}
	msg := err.Error()
	if e, ok := err.(*syntax.Error); ok {
		msg = e.Code.String() + " " + quoteShort(e.Expr)
	}
	return fmt.Errorf("does not compile (%s); fix the expression", msg)
}

func hasBackreference(re string) bool {
	for i := 0; i+1 < len(re); i++ {
		if re[i] == '\\' {
			if re[i+1] >= '1' && re[i+1] <= '9' {
				return true
			}
			i++
		}
	}
	return false
}

// quoteShort quotes s, cut to a readable length.
func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q", s)
}
