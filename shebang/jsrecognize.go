package shebang

import "strings"

// Recognizing Code Mode JavaScript (A16, issue 14 item 1). A shell input is
// recovered as JavaScript only when all of these hold:
//
//  1. It tokenizes as JavaScript (jsscan.go): shell words such as `2>&1`
//     tokenize, but a `#` comment, a lone `\`, `@`, or a quote left open at
//     a line end do not.
//  2. Its tokens form JavaScript statements: operands and operators
//     alternate (an operand right after an operand on the same line, as in
//     `rg -n "pattern"`, is a syntax error in JavaScript), brackets nest,
//     control keywords take their `(…)` header, and a line break separates
//     statements only where automatic semicolon insertion allows it (not
//     inside `(…)` or `[…]`). The checker is an operator-precedence
//     automaton over the token stream: it does not build a tree, it
//     rejects every token sequence that cannot occur in a valid script and
//     is lenient only where telling blocks from object literals would need
//     a full parse.
//  3. Every top-level expression statement does something: a call, an
//     assignment, ++/--, await, new, delete or yield (ESLint's
//     no-unused-expressions). Shell lines that happen to tokenize, like
//     `cat > a.mjs <<'EOF'` (a comparison and a shift) or a bare `EOF`,
//     do nothing as JavaScript.
//  4. It calls a nested tool, `tools.NAME(` or `tools["NAME"](`, and a
//     projection, `text(`, `image(` or `JSON.stringify(`, as tokens: not
//     inside a string, comment or regular expression.
//
// node is not available to the router at run time, and no JavaScript parser
// library is a dependency; node_test.go checks that every input this
// accepts compiles as an async function body in node, and the fuzz target
// checks that shell commands quoting arbitrary text are never accepted.

// isCodeModeJS reports shell input that is really Code Mode JavaScript.
func isCodeModeJS(input string) bool {
	if !strings.Contains(input, "tools") {
		return false
	}
	toks, ok := scanJS(input)
	return ok && callsTool(toks) && projects(toks) && jsStatements(toks)
}

// projects finds a call that shows a result to the model: text(…),
// image(…) or JSON.stringify(…) (DESIGN §9: a nested tool call plus a
// projection).
func projects(toks []jsToken) bool {
	for i := 0; i+1 < len(toks); i++ {
		t, next := toks[i], toks[i+1]
		if t.kind != jsIdent || next.kind != jsPunct || next.text != "(" {
			continue
		}
		member := i > 0 && toks[i-1].kind == jsPunct && toks[i-1].text == "."
		switch {
		case (t.text == "text" || t.text == "image") && !member:
			return true
		case t.text == "stringify" && member && i > 1 && toks[i-2].text == "JSON":
			return true
		}
	}
	return false
}

// callsTool finds `tools.NAME(` or `tools["NAME"](` (optional chaining
// allowed) where tools is not itself a property.
func callsTool(toks []jsToken) bool {
	at := func(i int, kind jsKind, text string) bool {
		return i < len(toks) && toks[i].kind == kind && (text == "" || toks[i].text == text)
	}
	for i, t := range toks {
		if t.kind != jsIdent || t.text != "tools" || i > 0 && (at(i-1, jsPunct, ".") || at(i-1, jsPunct, "?.")) {
			continue
		}
		dot := at(i+1, jsPunct, ".") || at(i+1, jsPunct, "?.")
		switch {
		case dot && at(i+2, jsIdent, "") && (at(i+3, jsPunct, "(") || at(i+3, jsPunct, "?.") && at(i+4, jsPunct, "(")):
			return true
		case at(i+1, jsPunct, "[") && at(i+2, jsString, "") && at(i+3, jsPunct, "]") && at(i+4, jsPunct, "("):
			return true
		}
	}
	return false
}
