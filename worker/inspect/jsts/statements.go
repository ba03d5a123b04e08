package jsts

import (
	"hpatch-router/worker/inspect/outline"
	"hpatch-router/worker/inspect/scan"
)

// statements.go reads the statements of a JavaScript or TypeScript file from
// its tokens (tokens.go) the way tree-sitter's grammars delimit them
// — declarations ending with their body's '}', other statements with ';'
// or where automatic semicolon insertion ends them, control statements
// with their bodies — and outlines the top-level ones as tree-sitter's
// walk did: imports (the module string), const/let/var declarations
// (each plainly named declarator; constant for const; function when the
// value is a function or arrow function), functions (and TypeScript
// overload signatures), classes with their methods (and method
// signatures), TypeScript interfaces, type aliases and enums as types;
// export and declare are looked through, and a span starts with them.
// parse_complete is false when a bracket, string, comment, template,
// regular expression or JSX element is left open or closed by the wrong
// bracket.

// jsReader walks the tokens.
type jsReader struct {
	src   string
	toks  []jsToken
	match []int32 // for an opening bracket, the index of its closer (or len(toks)); -1 otherwise
	ts    bool    // TypeScript: class member decorators are not part of the member
	lines *outline.Lines
	res   outline.Result
}

// Outline outlines data as lang: "javascript", "typescript" (no JSX)
// or "tsx"; lines indexes data's rows. It never fails: what does not
// parse leaves ParseComplete false.
func Outline(lang string, data []byte, lines *outline.Lines) (outline.Result, error) {
	s := scanScript(string(data), lang != "typescript")
	r := &jsReader{src: s.src, toks: s.toks, ts: lang != "javascript", lines: lines,
		res: outline.Result{Kind: "source", ParseComplete: !s.broken}}
	r.matchBrackets()
	for i := 0; i < len(r.toks); {
		i = r.topLevel(i)
	}
	return r.res, nil
}

func (r *jsReader) text(i int) string {
	if i < 0 || i >= len(r.toks) {
		return ""
	}
	return r.src[r.toks[i].start:r.toks[i].end]
}

// kind is token i's kind, 0 past the end.
func (r *jsReader) kind(i int) byte {
	if i >= len(r.toks) {
		return 0
	}
	return r.toks[i].kind
}

// nl reports a line break before token i (true past the end).
func (r *jsReader) nl(i int) bool { return i >= len(r.toks) || r.toks[i].nl }

func (r *jsReader) is(i int, words ...string) bool {
	t := r.text(i)
	for _, w := range words {
		if t == w && r.toks[i].kind != 's' && r.toks[i].kind != 't' {
			return true
		}
	}
	return false
}

// row is the 1-based row of token i's first byte; last its last byte's.
func (r *jsReader) row(i int) int  { return r.lines.LineOf(int(r.toks[i].start)) }
func (r *jsReader) last(i int) int { return r.lines.LineOf(int(r.toks[i].end) - 1) }

// matchBrackets pairs the brackets; an unmatched one breaks the parse.
func (r *jsReader) matchBrackets() {
	r.match = make([]int32, len(r.toks))
	var stack []int32
	for i, t := range r.toks {
		r.match[i] = -1
		if t.kind != 'o' || t.end-t.start != 1 {
			continue
		}
		switch c := r.src[t.start]; c {
		case '(', '[', '{':
			stack = append(stack, int32(i))
		case ')', ']', '}':
			if len(stack) == 0 || r.src[r.toks[stack[len(stack)-1]].start] != scan.OpenerOf(c) {
				r.res.ParseComplete = false
				continue
			}
			r.match[stack[len(stack)-1]] = int32(i)
			stack = stack[:len(stack)-1]
		}
	}
	for _, i := range stack {
		r.match[i] = int32(len(r.toks)) // runs to the end
		r.res.ParseComplete = false
	}
}

// skipGroup returns the index after the bracket group opening at i.
func (r *jsReader) skipGroup(i int) int {
	if m := int(r.match[i]); m >= 0 {
		return min(m+1, len(r.toks))
	}
	return i + 1
}

func (r *jsReader) opens(i int) bool {
	return i < len(r.toks) && r.toks[i].kind == 'o' && r.match[i] >= 0
}

// endsExpression reports whether token i can end an expression, so a
// line break after it may end the statement.
func (r *jsReader) endsExpression(i int) bool {
	t := r.toks[i]
	switch t.kind {
	case 'o':
		switch r.text(i) {
		case ")", "]", "}", "++", "--":
			return true
		}
		return false
	case 'n':
		w := r.text(i)
		return !jsExpressionKeyword(w) && !jsOperatorWord(w) && !jsOpeningWord(w)
	}
	return true
}

// jsOpeningWord reports words that begin a construct and so never end a
// statement at a line break after them.
func jsOpeningWord(w string) bool {
	switch w {
	case "const", "var", "import", "export", "class", "function", "if", "for", "while", "switch",
		"try", "catch", "finally", "with", "enum", "interface", "declare", "abstract", "namespace",
		"static":
		return true
	}
	return false
}

// continuesExpression reports whether token i, at the start of a line,
// continues the expression before it (no semicolon is inserted).
func (r *jsReader) continuesExpression(i int) bool {
	t := r.toks[i]
	switch t.kind {
	case 'o':
		switch r.text(i) {
		case "{", "!", "~", "++", "--", "@", "#":
			return false
		}
		return true
	case 'n':
		return jsOperatorWord(r.text(i))
	case 't':
		return true // a tagged template
	}
	return false
}

// lineEnds reports whether the line break before token i ends the
// statement: the token before ends an expression and token i cannot
// continue it — or, in a type, a closing angle bracket is followed by a
// word that only starts a statement.
func (r *jsReader) lineEnds(i int) bool {
	if r.endsExpression(i-1) && !r.continuesExpression(i) {
		return true
	}
	return r.is(i-1, ">", ">>", ">>>") && r.is(i, "export", "import", "const", "let", "var", "function",
		"class", "interface", "declare", "enum", "namespace", "abstract")
}

// jsOperatorWord reports the binary operators spelled as words.
func jsOperatorWord(w string) bool {
	switch w {
	case "in", "instanceof", "as", "satisfies":
		return true
	}
	return false
}

// simpleEnd returns the index after a statement that ends with ';' or
// where a semicolon is inserted: at a line break between a token that
// ends an expression and one that cannot continue it, or before a '}'
// that closes the enclosing block.
func (r *jsReader) simpleEnd(i int) int { return r.end(i, false) }

// typeEnd is simpleEnd for a statement that holds only a type (a type
// alias, an ambient declaration): any word can end a type, and a line
// starting with extends continues one.
func (r *jsReader) typeEnd(i int) int { return r.end(i, true) }

func (r *jsReader) end(i int, typed bool) int {
	start := i
	for i < len(r.toks) {
		switch {
		case r.is(i, ";"):
			return i + 1
		case r.is(i, "}") && r.match[i] < 0:
			return i // closes the enclosing block (or is unmatched)
		case i > start && r.toks[i].nl && (r.lineEnds(i) || typed && r.endsType(i-1) && !r.continuesExpression(i) && !r.is(i, "extends")):
			return i
		case r.opens(i):
			i = r.skipGroup(i)
		default:
			i++
		}
	}
	return i
}

// statement returns the index after the statement starting at token i
// (any nesting level; control statements read their bodies).
func (r *jsReader) statement(i int) int {
	if i >= len(r.toks) {
		return i
	}
	switch {
	case r.is(i, "{"):
		return r.skipGroup(i)
	case r.is(i, ";"):
		return i + 1
	case r.is(i, "if", "for", "while", "with") && r.is(i+1, "(", "await"):
		j := i + 1
		if r.is(j, "await") {
			j++
		}
		j = r.statement(r.skipGroup(j))
		if r.is(i, "if") && r.is(j, "else") {
			j = r.statement(j + 1)
		}
		return j
	case r.is(i, "do"):
		j := r.statement(i + 1)
		if r.is(j, "while") && r.is(j+1, "(") {
			j = r.skipGroup(j + 1)
			if r.is(j, ";") {
				j++
			}
		}
		return j
	case r.is(i, "switch") && r.is(i+1, "("):
		j := r.skipGroup(i + 1)
		if r.is(j, "{") {
			j = r.skipGroup(j)
		}
		return j
	case r.is(i, "try") && r.is(i+1, "{"):
		j := r.skipGroup(i + 1)
		if r.is(j, "catch") {
			j++
			if r.is(j, "(") {
				j = r.skipGroup(j)
			}
			if r.is(j, "{") {
				j = r.skipGroup(j)
			}
		}
		if r.is(j, "finally") && r.is(j+1, "{") {
			j = r.skipGroup(j + 1)
		}
		return j
	case r.kind(i) == 'n' && r.is(i+1, ":") && !jsReserved(r.text(i)):
		return r.statement(i + 2) // a labelled statement
	}
	if d := r.declaration(i); d.end > i {
		return d.end
	}
	return r.simpleEnd(i)
}

// jsReserved reports words that cannot be labels.
func jsReserved(w string) bool {
	switch w {
	case "default", "case":
		return true
	}
	return false
}

// topLevel outlines the statement at i and returns the index after it.
func (r *jsReader) topLevel(i int) int {
	start := i
	i = r.decorators(i)
	d := r.declaration(i)
	if d.end <= i {
		end := r.statement(i)
		if end <= start {
			end = start + 1
		}
		return end
	}
	r.outline(start, d)
	return d.end
}

// decorators skips decorators (@name.path(args)…) at i.
func (r *jsReader) decorators(i int) int {
	for r.is(i, "@") {
		i++
		for i < len(r.toks) && (r.toks[i].kind == 'n' || r.is(i, ".")) && !(r.is(i, ".") && r.is(i+1, ".")) {
			i++
			if r.is(i-1, ".") {
				continue
			}
			if !r.is(i, ".") {
				break
			}
		}
		if r.is(i, "(") {
			i = r.skipGroup(i)
		}
	}
	return i
}
