package hpatch

import (
	"math/rand/v2"
	"strings"
)

// Generated edits for TestGrammarAgreement: lines drawn from the pieces
// the grammar distinguishes (blanks, line endings, the three commands,
// well- and ill-formed ids, rows, JSON strings and heredocs), with a fixed
// seed so every run checks the same edits.

type editGen struct{ r *rand.Rand }

func (g editGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g editGen) eol() string { return g.pick("\n", "\n", "\r\n", "\r") }

func (g editGen) blank() string { return g.pick("", "", "", " ", "\t", " \t ") }

func (g editGen) id() string {
	return g.pick("call_1", "call_1", "s", "a.b", ".x", "..x", ".", "..", "...", ".r", ".ru", ".runtime", ".runtimes",
		".runtim", ".hpatch-tmp-", ".hpatch-tmp-1", ".hpatch-tmp", ".hpatch", ".h", "é", "a b", "a/b", `a\b`, "",
		"x\v", "PATCH", "in", "EOF", "a\u00a0b")
}

func (g editGen) row() string {
	return g.pick("1:abcd", "1:abcd", "12:0a9f", "123456789:ffff", "1234567890:ffff", "0:abcd", "01:abcd",
		"1:ABCD", "1:abc", "1:abcde", "9:0000", "1:", ":abcd", "x:abcd")
}

func (g editGen) path() string {
	return g.pick("a.go", "src/a.go", "/w/b.txt", "rm", "new", `"a b"`, `"@x"`, `""`, `"a\u00e9"`, `"x" y`, "a b", "@a", "a\"b", `"a`, "é/ü")
}

func (g editGen) text() string {
	return g.pick(`"x"`, `"x"`, `"x" 2`, `"x"`+"\t3", `"x" 0`, `"x"3`, `""`, `"a\nb"`, `"\u000a"`, `"\u000B"`, `"\t"`, `"é"`, `"x" 1234567890`, `"x" 01`)
}

func (g editGen) target(add bool) string {
	switch g.r.IntN(7) {
	case 2:
		return g.text()
	case 0:
		return g.row() + ".." + g.row()
	case 1:
		return g.pick("EOF", "EOF", "eof", "1:abcd..", "..1:abcd", "1:abcd...2:abcd", "1:abcd..EOF")
	}
	return g.row()
}

func (g editGen) json(add bool) string {
	return g.pick(`"x"`, `"x"`, `""`, `"a\nb"`, `"\u00e9"`, `"\u0000"`, `"\u0001"`, `"\u000"`, `"\uD800"`,
		"\"tab\tx\"", `"\q"`, `"x" y`, `"unterminated`, `'x'`, `"\"\\\/\b\f\r\t"`, `"x"`+g.blank(), `"é😀"`,
		"\"x\"\v", `"\`, `"x\"`, `"PATCH"`, `x`, `<<EOF`, `"\n"`, `"\u00"`, `"\uzzzz"`)
}

func (g editGen) heredoc() string {
	var b strings.Builder
	b.WriteString(g.pick("<<PATCH", "<<PATCH", "<<PATCH", "<<PATCH ", "<< PATCH", "<<PATCHX", "<<patch"))
	for n := g.r.IntN(4); n >= 0; n-- {
		b.WriteString(g.eol())
		if n == 0 {
			b.WriteString(g.pick("PATCH", "PATCH", "PATCH", "PATCH ", " PATCH", "PATC", ""))
			break
		}
		b.WriteString(g.pick("x", "", "", "PATCHX", "PATC", "P", " PATCH", "PATCH ", "in @shell/x", "  \"q\" \\n $x\t", "\v", "é"))
	}
	return b.String()
}

func (g editGen) line() string {
	sp := func() string { return g.pick(" ", " ", "\t", "  ", "") }
	switch g.r.IntN(10) {
	case 0, 1:
		return g.blank() + g.pick("in", "in", "in", "In", "inn") + sp() + g.pick("@shell/", "@shell/", "@shell/", "src/", "@shel/", "") + g.id() + g.blank()
	case 2:
		return g.blank()
	case 3:
		return g.pick("replace 1:abcd \"x\"", "PATCH", "# note", "type", "add", "in", "\v", "\u00a0")
	case 4:
		sp := g.pick(" ", "\t", "  ", "")
		return g.blank() + g.pick("in"+sp+g.path(), "new"+sp+g.path(), "mv"+sp+g.path(), "rm", "rm"+sp+"x", "rmx", "type"+sp+g.json(false), "type"+sp+g.heredoc()) + g.blank()
	}
	word := g.pick("type", "type", "add", "add", "typ", "Type")
	add := word == "add"
	value := g.json(add)
	if g.r.IntN(3) == 0 {
		value = g.heredoc()
	}
	return g.blank() + word + sp() + g.target(add) + sp() + value + g.blank()
}

// generatedEdits returns n edits: mostly an `in` line and operations, with
// invalid pieces mixed in.
func generatedEdits(n int) []string {
	g := editGen{rand.New(rand.NewPCG(14, 6))}
	out := make([]string, 0, n)
	for range n {
		var b strings.Builder
		if g.r.IntN(4) == 0 {
			b.WriteString(g.blank() + g.eol())
		}
		if g.r.IntN(2) == 0 {
			b.WriteString(g.blank() + "in " + "@shell/" + g.pick("call_1", "s", "a", g.id()) + g.blank())
		} else {
			b.WriteString(g.blank() + g.pick("in ", "in ", "new ") + g.path() + g.blank())
		}
		for k := g.r.IntN(5); k >= 0; k-- {
			b.WriteString(g.eol())
			b.WriteString(g.line())
		}
		if g.r.IntN(2) == 0 {
			b.WriteString(g.eol())
		}
		out = append(out, b.String())
	}
	return out
}

// mutatedEdits derives up to n edits from valid ones by deleting one byte
// or inserting one that the grammar treats specially.
func mutatedEdits(valid []string, n int) []string {
	if len(valid) == 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(14, 7))
	inserts := []string{" ", "\t", "\n", "\r", "\"", "\\", ".", ":", "P", "0", "é", "\x00", "\v", "/", "<", "@"}
	out := make([]string, 0, n)
	for range n {
		e := valid[r.IntN(len(valid))]
		i := r.IntN(len(e) + 1)
		if r.IntN(2) == 0 && i < len(e) {
			out = append(out, e[:i]+e[i+1:])
		} else {
			out = append(out, e[:i]+inserts[r.IntN(len(inserts))]+e[i:])
		}
	}
	return out
}
