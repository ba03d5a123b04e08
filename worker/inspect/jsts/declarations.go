package jsts

import (
	"strings"

	"hpatch-router/worker/inspect/outline"
)

// The declarations the outline lists, read from their first token:
// import, const/let/var, function, class, and TypeScript's interface,
// type, enum, namespace, module and declare forms.

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
		return !jsTypeOperator(r.text(i))
	case 'o':
		switch r.text(i) {
		case ")", "]", ">", "}", ">>", ">>>":
			return true
		}
		return false
	}
	return true
}

// jsTypeOperator reports the words after which a '{' is a type, not a body.
func jsTypeOperator(w string) bool {
	switch w {
	case "extends", "implements", "keyof", "typeof", "infer", "is", "asserts", "in", "of", "readonly",
		"unique":
		return true
	}
	return false
}

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
	add := func(kind string, name int, from, to int) *outline.Entry {
		r.res.Entries = append(r.res.Entries, outline.Entry{Kind: kind, Name: r.text(name), NameLine: r.row(name), Start: from, End: to})
		return &r.res.Entries[len(r.res.Entries)-1]
	}
	switch d.kind {
	case "import":
		if d.name >= 0 {
			e := add(outline.KindImport, d.name, first, last)
			e.Name = strings.Trim(e.Name, "\"'`")
		}
	case "variable", "constant":
		for _, dc := range d.declarators {
			if dc.name < 0 {
				continue
			}
			kind := d.kind
			if dc.function {
				kind = outline.KindFunction
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
		add(outline.KindClass, d.name, first, last)
		if d.body >= 0 {
			r.members(d.body, r.text(d.name))
		}
	}
}
