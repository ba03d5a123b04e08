package jsts

import (
	"io"
	"slices"
	"testing"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// Why this package has a tokenizer of its own beside the tdewolff/parse
// js lexer the router binary already holds for shebang (issue 36 asked for
// one JavaScript lexer): on each input below the two must differ, and
// the outline needs what only this one reads. If tdewolff's lexer ever
// reads these, this test fails, and the question is open again.
func TestTdewolffLexerCannotReplaceTheTokenizer(t *testing.T) {
	// lexed is tdewolff's token stream of src (whitespace, line breaks and
	// comments left out) up to its first error, and that error.
	lexed := func(src string) ([]string, error) {
		l := js.NewLexer(parse.NewInputString(src))
		var toks []string
		for {
			tt, text := l.Next()
			switch tt {
			case js.ErrorToken:
				if l.Err() == io.EOF {
					return toks, nil
				}
				return toks, l.Err()
			case js.WhitespaceToken, js.LineTerminatorToken, js.CommentToken:
				continue
			}
			toks = append(toks, string(text))
		}
	}
	t.Run("JSX text: a lone quote is text, tdewolff starts a string", func(t *testing.T) {
		src := "const e = <p>it's</p>\nfunction after() {}\n"
		if _, err := lexed(src); err == nil {
			t.Fatalf("tdewolff's lexer read %q without an error: it may lex JSX now", src)
		}
		if got, complete := summary(t, "f.jsx", src); !complete || !slices.Equal(got, []string{"constant e@1-1", "function after@2-2"}) {
			t.Fatalf("jsts: %q complete %v", got, complete)
		}
	})
	t.Run("JSX text: // is text, tdewolff starts a comment that hides the closing tag and brace", func(t *testing.T) {
		src := "function A() { return <a>http://x</a> }\nconst after = 1\n"
		toks, err := lexed(src)
		if err != nil || slices.Contains(toks, "}") {
			t.Fatalf("tdewolff's lexer: %q %v: it may lex JSX now", toks, err)
		}
		if got, complete := summary(t, "f.jsx", src); !complete || !slices.Equal(got, []string{"function A@1-1", "constant after@2-2"}) {
			t.Fatalf("jsts: %q complete %v", got, complete)
		}
	})
	t.Run("TypeScript decorators: tdewolff has no @ token", func(t *testing.T) {
		if _, err := lexed("@Component({})\nclass C {}\n"); err == nil {
			t.Fatal("tdewolff's lexer read a decorator: it may lex TypeScript now")
		}
	})
	t.Run("regular expression or division: tdewolff leaves it to its caller", func(t *testing.T) {
		// Unasked, a regular expression lexes as a division and its brace
		// as a brace: the caller must know an expression starts there,
		// which is what expressionStart (tokens.go) decides.
		toks, _ := lexed("x = /}/")
		if !slices.Equal(toks, []string{"x", "=", "/", "}", "/"}) {
			t.Fatalf("tdewolff's lexer: %q", toks)
		}
	})
}
