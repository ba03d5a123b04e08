package worker

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// evalPOSIX runs src as the worker runs a #!sh body, in-process, and
// returns its stdout.
func evalPOSIX(t *testing.T, src string, rewrite bool) string {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(src), "sh")
	if err != nil {
		t.Fatal(err)
	}
	if rewrite {
		keepPOSIXBraces(f)
	}
	var out bytes.Buffer
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.Env(expand.ListEnviron("A=x")))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), f); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return out.String()
}

// The outputs are dash's (Debian's /bin/sh) for the same scripts.
func TestKeepPOSIXBraces(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`echo {1..3} a{b,c}`, "{1..3} a{b,c}\n"},
		{`echo \{1..3} '{1,2}' "{1,2}" { }`, "{1..3} {1,2} {1,2} { }\n"},
		{`for x in {a,b} c{d,e}; do echo $x; done`, "{a,b}\nc{d,e}\n"},
		{`echo ${A}{1,2} "$A"{3,4}`, "x{1,2} x{3,4}\n"},
		{`x={a,b}; echo $x`, "{a,b}\n"},
		{`echo a\\{1,2}`, "a\\{1,2}\n"},
		{`{ echo group; }`, "group\n"},
		{`f() { echo "$@"; }; f {1..2}`, "{1..2}\n"},
		{`echo *{`, "*{\n"},
		{`case {a,b} in {a,b}) echo matched ;; esac`, "matched\n"},
	} {
		if got := evalPOSIX(t, c.src, true); got != c.want {
			t.Errorf("%s: got %q, want %q (without the rewrite: %q)", c.src, got, c.want, evalPOSIX(t, c.src, false))
		}
	}
}

// The rewrite leaves every word's text as it was (only brace expansion
// changes) and leaves no brace for the expander to find.
func FuzzKeepPOSIXBraces(f *testing.F) {
	for _, s := range []string{`echo {1..3} a{b,c}`, `echo \{x} '{' "{"{`, `for i in {a,b}; do :; done`, `echo a\\{b,c}`, `echo {$A,b}`} {
		f.Add(s)
	}
	cfg := &expand.Config{Env: expand.ListEnviron("A=x")}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(src), "")
		if err != nil {
			return
		}
		type word struct {
			w    *syntax.Word
			text string
		}
		var words []word
		syntax.Walk(file, func(n syntax.Node) bool {
			if w, ok := n.(*syntax.Word); ok {
				if s, err := expand.Literal(cfg, w); err == nil && !strings.ContainsAny(w.Lit(), "`$") {
					words = append(words, word{w, s})
				}
			}
			return true
		})
		keepPOSIXBraces(file)
		syntax.Walk(file, func(n syntax.Node) bool {
			call, ok := n.(*syntax.CallExpr)
			if !ok {
				return true
			}
			for _, w := range call.Args {
				// A word with no expansion and no glob is one field (brace
				// expansion would make it several).
				if strings.ContainsAny(src, "$`*?[") {
					continue
				}
				if fields, err := expand.Fields(cfg, w); err == nil && len(fields) != 1 {
					t.Fatalf("%q: a word expands to %q, want one field", src, fields)
				}
			}
			return true
		})
		for _, w := range words {
			if s, err := expand.Literal(cfg, w.w); err != nil || s != w.text {
				t.Fatalf("%q: a word's text %q became %q (%v)", src, w.text, s, err)
			}
		}
	})
}
