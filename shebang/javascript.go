package shebang

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

// Recognizing Code Mode JavaScript (A16, issue 14 item 1). A shell input is
// recovered as JavaScript only when all of these hold:
//
//  1. It parses as the body of Code Mode's async function (top-level await
//     and return allowed) with github.com/tdewolff/parse/v2/js. Shell text
//     that mentions JavaScript does not: `rg -n 'x'` puts an operand after
//     an operand, and a `#` comment, a lone `\` or an open quote is no token.
//  2. Every top-level expression statement does something: a call, an
//     assignment, ++/--, await, new, delete, yield or a tagged template
//     (ESLint's no-unused-expressions). Shell lines that happen to parse,
//     like `cat > a.mjs <<'EOF'` (a comparison and a shift) or a bare
//     `EOF`, do nothing as JavaScript.
//  3. It calls a nested tool, `tools.NAME(` or `tools["NAME"](`, and a
//     projection, `text(`, `image(` or `JSON.stringify(`: as code, not
//     inside a string, comment or regular expression.
//
// node is not available to the router at run time; node_test.go checks that
// every input this accepts compiles as an async function body in node, and
// the fuzz target checks that shell commands quoting arbitrary text are
// never accepted.

// parseJS parses src as a Code Mode script, or returns nil when it is not
// JavaScript.
func parseJS(src string) *js.AST {
	ast, err := js.Parse(parse.NewInputString(src), js.Options{Inline: true})
	if err != nil {
		return nil
	}
	return ast
}

// isCodeModeJS reports shell input that is really Code Mode JavaScript.
func isCodeModeJS(input string) bool {
	if !strings.Contains(input, "tools") {
		return false
	}
	ast := parseJS(input)
	if ast == nil {
		return false
	}
	for _, stmt := range ast.List {
		if e, ok := stmt.(*js.ExprStmt); ok && !doesSomething(e.Value) {
			return false
		}
	}
	var f jsFacts
	js.Walk(&f, ast)
	return f.toolCall && f.projection && !f.badRegexp
}

// jsFacts is what a walk over a script found.
type jsFacts struct {
	toolCall    bool     // tools.NAME( or tools["NAME"](
	execCommand bool     // the tool called is exec_command
	projection  bool     // text(, image( or JSON.stringify(
	badRegexp   bool     // a regular expression that cannot compile
	strings     []string // string and template literals, decoded
}

func (f *jsFacts) Enter(n js.INode) js.IVisitor {
	switch n := n.(type) {
	case *js.CallExpr:
		if tool, ok := toolName(n.X); ok {
			f.toolCall = true
			f.execCommand = f.execCommand || tool == "exec_command"
		}
		switch x := n.X.(type) {
		case *js.Var:
			f.projection = f.projection || x.String() == "text" || x.String() == "image"
		case *js.DotExpr:
			f.projection = f.projection || isVar(x.X, "JSON") && x.Y.String() == "stringify"
		}
	case *js.LiteralExpr:
		switch n.TokenType {
		case js.StringToken:
			f.strings = append(f.strings, jsStringValue(n.Data))
		case js.RegExpToken:
			f.badRegexp = f.badRegexp || !compilableRegexp(string(n.Data))
		}
	case *js.TemplateExpr:
		var raw strings.Builder
		for _, p := range n.List {
			raw.Write(p.Value)
			raw.WriteString(p.Expr.String())
		}
		raw.Write(n.Tail)
		f.strings = append(f.strings, jsTemplateText(strings.Trim(raw.String(), "`")))
	}
	return f
}

func (f *jsFacts) Exit(js.INode) {}

// toolName is NAME when callee is tools.NAME or tools["NAME"] (optional
// chaining allowed) and tools is not itself a property.
func toolName(callee js.IExpr) (string, bool) {
	switch c := callee.(type) {
	case *js.DotExpr:
		if isVar(c.X, "tools") {
			return c.Y.String(), true
		}
	case *js.IndexExpr:
		if lit, ok := c.Y.(*js.LiteralExpr); ok && lit.TokenType == js.StringToken && isVar(c.X, "tools") {
			return jsStringValue(lit.Data), true
		}
	}
	return "", false
}

func isVar(e js.IExpr, name string) bool {
	v, ok := e.(*js.Var)
	return ok && string(v.Data) == name
}

// doesSomething reports an expression that has an effect somewhere in it.
func doesSomething(e js.IExpr) bool {
	var v effectFinder
	js.Walk(&v, e)
	return v.found
}

type effectFinder struct{ found bool }

func (v *effectFinder) Enter(n js.INode) js.IVisitor {
	switch n := n.(type) {
	case *js.CallExpr, *js.NewExpr, *js.YieldExpr:
		v.found = true
	case *js.TemplateExpr:
		v.found = n.Tag != nil
	case *js.UnaryExpr:
		switch n.Op {
		case js.PreIncrToken, js.PreDecrToken, js.PostIncrToken, js.PostDecrToken, js.AwaitToken, js.DeleteToken:
			v.found = true
		}
	case *js.BinaryExpr:
		v.found = isAssignment(n.Op)
	}
	if v.found {
		return nil
	}
	return v
}

func (v *effectFinder) Exit(js.INode) {}

// isAssignment reports =, op= and the logical assignments.
func isAssignment(op js.TokenType) bool {
	switch op {
	case js.EqToken, js.AddEqToken, js.SubEqToken, js.MulEqToken, js.DivEqToken, js.ModEqToken, js.ExpEqToken,
		js.LtLtEqToken, js.GtGtEqToken, js.GtGtGtEqToken, js.BitAndEqToken, js.BitOrEqToken, js.BitXorEqToken,
		js.AndEqToken, js.OrEqToken, js.NullishEqToken:
		return true
	}
	return false
}

// compilableRegexp checks what a regular expression literal (/…/flags)
// needs to compile that shell text often lacks and the parser does not
// check: groups that balance, a quantifier that follows something, and
// known flags, each once.
func compilableRegexp(lit string) bool {
	end := strings.LastIndexByte(lit, '/')
	pattern, flags := lit[1:end], lit[end+1:]
	for i, f := range flags {
		if !strings.ContainsRune("dgimsuyv", f) || strings.ContainsRune(flags[:i], f) {
			return false
		}
	}
	class, groups, atom := false, 0, false
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\':
			i++
			if !class && i < len(pattern) && (pattern[i] == 'b' || pattern[i] == 'B') {
				atom = false // an assertion: nothing to repeat
				continue
			}
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			groups++
			atom = false
			continue
		case c == ')':
			if groups--; groups < 0 {
				return false
			}
		case c == '|' || c == '^' || c == '$':
			atom = false
			continue
		case (c == '*' || c == '+' || c == '?') && !atom:
			if c != '?' || pattern[i-1] != '(' {
				return false
			}
		}
		atom = true
	}
	return groups == 0
}

// jsStringValue decodes a string literal as written, quotes included.
func jsStringValue(lit []byte) string {
	return jsTemplateText(string(lit[1 : len(lit)-1]))
}

// jsTemplateText is the content of a template with escapes decoded and
// substitutions kept as written (they read like shell parameters).
func jsTemplateText(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			i += jsEscape(&b, raw[i+1:])
			continue
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// jsEscape decodes the escape whose text (after the backslash) starts
// rest into b and returns how many bytes of rest it used.
func jsEscape(b *strings.Builder, rest string) int {
	switch rest[0] {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case '0':
		b.WriteByte(0)
	case '\r':
		if len(rest) > 1 && rest[1] == '\n' {
			return 2 // line continuation
		}
	case '\n':
	case 'x', 'u':
		digits := rest[1:min(len(rest), 5)]
		if rest[0] == 'x' {
			digits = rest[1:min(len(rest), 3)]
		} else if strings.HasPrefix(rest, "u{") {
			if end := strings.IndexByte(rest, '}'); end > 0 {
				digits = rest[2:end]
				if v, err := strconv.ParseUint(digits, 16, 32); err == nil {
					b.WriteRune(rune(v))
					return end + 1
				}
			}
		}
		if v, err := strconv.ParseUint(digits, 16, 32); err == nil {
			b.WriteRune(rune(v))
			return 1 + len(digits)
		}
		b.WriteByte(rest[0])
	default:
		_, n := utf8.DecodeRuneInString(rest)
		b.WriteString(rest[:n])
		return n
	}
	return 1
}
