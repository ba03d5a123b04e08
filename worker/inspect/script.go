package inspect

import "strings"

// script.go reads the statements of a JavaScript or TypeScript file from
// its tokens (script_scan.go) the way tree-sitter's grammars delimit them
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
	match []int // for an opening bracket, the index of its closer (or len(toks))
	ts    bool  // TypeScript: class member decorators are not part of the member
	lines *Lines
	res   Result
}

// outlineScript returns the outliner of one language: "javascript",
// "typescript" or "tsx".
func outlineScript(lang string) outliner {
	return func(data []byte, lines *Lines) (Result, error) {
		s := scanScript(string(data), lang != "typescript")
		r := &jsReader{src: s.src, toks: s.toks, ts: lang != "javascript", lines: lines,
			res: Result{Kind: "source", ParseComplete: !s.broken}}
		r.matchBrackets()
		for i := 0; i < len(r.toks); {
			i = r.topLevel(i)
		}
		return r.res, nil
	}
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
func (r *jsReader) row(i int) int  { return r.lines.LineOf(r.toks[i].start) }
func (r *jsReader) last(i int) int { return r.lines.LineOf(r.toks[i].end - 1) }

// matchBrackets pairs the brackets; an unmatched one breaks the parse.
func (r *jsReader) matchBrackets() {
	r.match = make([]int, len(r.toks))
	var stack []int
	for i, t := range r.toks {
		r.match[i] = -1
		if t.kind != 'o' || t.end-t.start != 1 {
			continue
		}
		switch c := r.src[t.start]; c {
		case '(', '[', '{':
			stack = append(stack, i)
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if len(stack) == 0 || r.src[r.toks[stack[len(stack)-1]].start] != open {
				r.res.ParseComplete = false
				continue
			}
			r.match[stack[len(stack)-1]] = i
			stack = stack[:len(stack)-1]
		}
	}
	for _, i := range stack {
		r.match[i] = len(r.toks) // runs to the end
		r.res.ParseComplete = false
	}
}

// skipGroup returns the index after the bracket group opening at i.
func (r *jsReader) skipGroup(i int) int {
	if m := r.match[i]; m >= 0 {
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
		return !jsExpressionKeywords[w] && !jsOperatorWords[w] && !jsOpeningWords[w]
	}
	return true
}

// jsOpeningWords are words that begin a construct and so never end a
// statement at a line break after them.
var jsOpeningWords = map[string]bool{
	"const": true, "var": true, "import": true, "export": true, "class": true, "function": true,
	"if": true, "for": true, "while": true, "switch": true, "try": true, "catch": true, "finally": true,
	"with": true, "enum": true, "interface": true, "declare": true, "abstract": true, "namespace": true,
	"static": true,
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
		return jsOperatorWords[r.text(i)]
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

// jsOperatorWords are the binary operators spelled as words.
var jsOperatorWords = map[string]bool{"in": true, "instanceof": true, "as": true, "satisfies": true}

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
	case r.kind(i) == 'n' && r.is(i+1, ":") && !jsReserved[r.text(i)]:
		return r.statement(i + 2) // a labelled statement
	}
	if d := r.declaration(i); d.end > i {
		return d.end
	}
	return r.simpleEnd(i)
}

// jsReserved are words that cannot be labels.
var jsReserved = map[string]bool{"default": true, "case": true}

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

// jsDecl is what a declaration statement declares: its kind, the token of
// its name (-1: none), the tokens of its body braces for a class (-1:
// none), its declarators for a variable statement, and where it ends.
type jsDecl struct {
	kind        string // "import", "variable", "constant", "function", "class", "type", "" (nothing outlined)
	name        int
	body        int
	declarators []jsDeclarator
	end         int
}

type jsDeclarator struct {
	name     int
	function bool
}

// declaration reads the declaration starting at token i (export and
// declare looked through); end == i when it is not one.
func (r *jsReader) declaration(i int) jsDecl {
	none := jsDecl{end: i, name: -1, body: -1}
	switch {
	case r.is(i, "export") && r.nl(i+1):
		return jsDecl{end: i + 1, name: -1, body: -1} // alone on its line: not read with the next (as tree-sitter)
	case r.is(i, "export"):
		j := i + 1
		if r.is(j, "default") {
			j++
			if d := r.declaration(j); d.end > j && (d.kind == "function" || d.kind == "class") {
				return d
			}
			return jsDecl{end: r.simpleEnd(j), name: -1, body: -1}
		}
		if d := r.declaration(r.decorators(j)); d.end > j {
			return d
		}
		return jsDecl{end: r.simpleEnd(j), name: -1, body: -1}
	case r.is(i, "import") && !r.is(i+1, "(", "."):
		d := jsDecl{kind: "import", name: -1, body: -1, end: r.simpleEnd(i)}
		for j := i + 1; j < d.end; j++ {
			if r.toks[j].kind == 's' && (r.is(j-1, "from") || j == i+1) {
				d.name = j
			}
		}
		return d
	case r.is(i, "const", "let", "var") && r.declaratorStart(i+1) && !r.is(i+1, "enum") && !(r.is(i, "let") && r.nl(i+1)):
		return r.variables(i, false)
	case r.is(i, "function") || r.is(i, "async") && r.is(i+1, "function") && !r.nl(i+1):
		return r.function(i)
	case r.is(i, "class") || r.ts && r.is(i, "abstract") && r.is(i+1, "class"):
		return r.class(i)
	case !r.ts:
		// the TypeScript declarations below are names in JavaScript
	case r.is(i, "declare") && !r.nl(i+1) && r.is(i+1, "const", "let", "var"):
		return r.variables(i+1, true)
	case r.is(i, "declare") && !r.nl(i+1) && r.declares(i+1):
		return r.declaration(i + 1)
	case r.is(i, "interface", "enum") && r.kind(i+1) == 'n', r.is(i, "const") && r.is(i+1, "enum"):
		j := i + 1
		if r.is(i, "const") {
			j++
		}
		return jsDecl{kind: "type", name: j, body: -1, end: r.bodyEnd(j + 1)}
	case r.is(i, "type") && r.kind(i+1) == 'n' && !r.nl(i+1) && r.is(i+2, "=", "<"):
		return jsDecl{kind: "type", name: i + 1, body: -1, end: r.typeEnd(i)}
	case r.is(i, "namespace", "module") && !r.nl(i+1) && (r.kind(i+1) == 'n' || r.kind(i+1) == 's'):
		return jsDecl{kind: "", name: -1, body: -1, end: r.bodyEnd(i + 1)}
	case r.is(i, "global") && r.is(i+1, "{"):
		return jsDecl{kind: "", name: -1, body: -1, end: r.skipGroup(i + 1)}
	}
	return none
}

// declares reports whether the word after declare starts a declaration.
func (r *jsReader) declares(i int) bool {
	return r.is(i, "const", "let", "var", "function", "async", "class", "abstract", "interface", "enum",
		"type", "namespace", "module", "global")
}

// declaratorStart reports whether a variable declarator can start at i
// (so `let` used as a name is not a declaration).
func (r *jsReader) declaratorStart(i int) bool {
	return r.kind(i) == 'n' || r.is(i, "[", "{")
}

// variables reads `const|let|var a = …, b = …` (ambient: declared, with
// types only).
func (r *jsReader) variables(i int, ambient bool) jsDecl {
	d := jsDecl{kind: "variable", name: -1, body: -1, end: r.end(i, ambient)}
	if r.is(i, "const") {
		d.kind = "constant"
	}
	for j := i + 1; j < d.end; {
		dc := jsDeclarator{name: -1}
		if r.kind(j) == 'n' {
			dc.name = j
		}
		// to the value (past a type annotation, whose angle brackets may
		// hold commas), then to the comma that ends the declarator
		j = r.skipType(j, d.end)
		if r.is(j, "=") {
			dc.function = r.functionValue(j + 1)
			if r.ts && r.is(j+1, "<") {
				j = r.typeParameters(j + 1) // <T, U>(…) => …: its commas are not the declarator's
			}
		}
		for j < d.end && !r.is(j, ",", ";") {
			if k := r.typeParameters(j); r.ts && k > j && r.is(k, "(") {
				j = k // new Map<K, V>(): type arguments, whose commas are theirs
				continue
			}
			j = r.step(j)
		}
		d.declarators = append(d.declarators, dc)
		j++
	}
	return d
}

// skipType returns the first '=', ',' or ';' from i (before end) outside
// angle brackets: past a declarator's name and type annotation.
func (r *jsReader) skipType(i, end int) int {
	depth := 0
	for ; i < end; i = r.step(i) {
		depth += angleDelta(r.text(i))
		if depth <= 0 && r.is(i, "=", ",", ";") {
			return i
		}
	}
	return i
}

// angleDelta is how a token changes the depth of angle brackets.
func angleDelta(tok string) int {
	switch tok {
	case "<":
		return 1
	case ">", ">>", ">>>":
		return -len(tok)
	}
	return 0
}

// step returns the index after token i, a bracket group as one.
func (r *jsReader) step(i int) int {
	if r.opens(i) {
		return r.skipGroup(i)
	}
	return i + 1
}

// functionValue reports whether the expression at i is a function or
// arrow function (tree-sitter: function, function_expression,
// generator_function, arrow_function).
func (r *jsReader) functionValue(i int) bool {
	if r.is(i, "async") && !r.nl(i+1) {
		i++
		if r.kind(i) == 'n' && !r.is(i, "function") {
			return r.is(i+1, "=>") // async x => …
		}
	}
	switch {
	case r.is(i, "function"):
		// only when the function is the whole value (not called at once)
		j := r.function(i).end
		return j >= len(r.toks) || r.is(j, ",", ";") || r.nl(j) && !r.continuesExpression(j) || r.is(j, "}") && r.match[j] < 0
	case r.kind(i) == 'n' && r.is(i+1, "=>"):
		return true // x => …
	case r.is(i, "<") && r.ts: // <T>(…) => …
		for j := i; j < len(r.toks) && j < i+64; j++ {
			if r.is(j, ">") {
				return r.arrowAfterParams(j + 1)
			}
		}
		return false
	case r.is(i, "("):
		return r.arrowAfterParams(i)
	}
	return false
}

// arrowAfterParams reports whether `(params)` at i is followed by an
// arrow, with a return type annotation in between or not.
func (r *jsReader) arrowAfterParams(i int) bool {
	if !r.is(i, "(") {
		return false
	}
	j := r.skipGroup(i)
	if r.is(j, "=>") {
		return true
	}
	if !r.is(j, ":") {
		return false
	}
	for j++; j < len(r.toks) && j < i+512; j = r.step(j) {
		if r.is(j, "=>") {
			return true
		}
		if r.is(j, ";", ",", "=") || r.is(j, "}") && r.match[j] < 0 {
			return false
		}
	}
	return false
}

// bodyEnd returns the index after the body '{…}' of a declaration whose
// header continues at i (a type annotation or heritage clause may hold
// braces of its own: a '{' right after a name, ')', ']', '>' or '}'
// starts the body), or after the statement when it has no body.
func (r *jsReader) bodyEnd(i int) int {
	b, end := r.bodyOpen(i)
	if b < 0 {
		return end
	}
	return r.skipGroup(b)
}

// bodyOpen finds the '{' of a body; without one (a signature) body is -1
// and end is where the header ends (after its ';', or where a semicolon
// is inserted).
func (r *jsReader) bodyOpen(i int) (body, end int) {
	for j := i; j < len(r.toks); {
		switch {
		case r.is(j, "{"):
			if j == i || r.endsType(j-1) { // else a type literal
				return j, -1
			}
			j = r.skipGroup(j)
		case r.is(j, ";"):
			return -1, j + 1
		case r.is(j, "}") && r.match[j] < 0:
			return -1, j
		case j > i && r.toks[j].nl && r.endsType(j-1) && !r.continuesExpression(j) && !r.headerWord(j):
			return -1, j
		default:
			j = r.step(j)
		}
	}
	return -1, len(r.toks)
}

// endsType reports whether token i can end a type or a declaration
// header, so a line break after it may end a signature.
func (r *jsReader) endsType(i int) bool {
	switch r.toks[i].kind {
	case 'n':
		return !jsTypeOperators[r.text(i)]
	case 'o':
		switch r.text(i) {
		case ")", "]", ">", "}", ">>", ">>>":
			return true
		}
		return false
	}
	return true
}

// jsTypeOperators are the words after which a '{' is a type, not a body.
var jsTypeOperators = map[string]bool{"extends": true, "implements": true, "keyof": true, "typeof": true,
	"infer": true, "is": true, "asserts": true, "in": true, "of": true, "readonly": true, "unique": true}

// headerWord reports words that continue a declaration header on a new
// line: heritage clauses.
func (r *jsReader) headerWord(i int) bool { return r.is(i, "extends", "implements") }

// function reads a function declaration or signature.
func (r *jsReader) function(i int) jsDecl {
	j := i
	if r.is(j, "async") {
		j++
	}
	j++ // function
	if r.is(j, "*") {
		j++
	}
	d := jsDecl{kind: "function", name: -1, body: -1}
	if r.kind(j) == 'n' {
		d.name = j
		j++
	}
	d.end = r.bodyEnd(j)
	return d
}

// class reads a class declaration and finds its body.
func (r *jsReader) class(i int) jsDecl {
	j := i + 1
	if r.is(i, "abstract") {
		j++
	}
	d := jsDecl{kind: "class", name: -1, body: -1}
	if r.kind(j) == 'n' && !r.is(j, "extends", "implements") {
		d.name = j
		j++
	}
	var end int
	if d.body, end = r.bodyOpen(j); d.body < 0 {
		d.end = end
		return d
	}
	d.end = r.skipGroup(d.body)
	return d
}

// outline records the entries of a top-level declaration whose statement
// starts at token start.
func (r *jsReader) outline(start int, d jsDecl) {
	first, last := r.row(start), r.last(max(d.end-1, start))
	add := func(kind string, name int, from, to int) *Entry {
		r.res.Entries = append(r.res.Entries, Entry{Kind: kind, Name: r.text(name), NameLine: r.row(name), Start: from, End: to})
		return &r.res.Entries[len(r.res.Entries)-1]
	}
	switch d.kind {
	case "import":
		if d.name >= 0 {
			e := add(KindImport, d.name, first, last)
			e.Name = strings.Trim(e.Name, "\"'`")
		}
	case "variable", "constant":
		for _, dc := range d.declarators {
			if dc.name < 0 {
				continue
			}
			kind := d.kind
			if dc.function {
				kind = KindFunction
			}
			add(kind, dc.name, first, last)
		}
	case "function", "type":
		if d.name >= 0 {
			add(d.kind, d.name, first, last)
		}
	case "class":
		if d.name < 0 {
			return
		}
		add(KindClass, d.name, first, last)
		if d.body >= 0 {
			r.members(d.body, r.text(d.name))
		}
	}
}
