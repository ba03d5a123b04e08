package python

import (
	"strings"
	"unicode"

	"hpatch-router/worker/inspect/outline"
)

// pyStmt is one statement: a logical line (decorators before it) and,
// for a block opener, the statements of its block.
type pyStmt struct {
	line       *pyLine
	decorators []*pyLine
	end        int // last row (0-based), its block included
	body       []*pyStmt
}

func (st *pyStmt) start() int {
	if len(st.decorators) > 0 {
		return st.decorators[0].first
	}
	return st.line.first
}

// pyBlock is an open block while the statements are assembled.
type pyBlock struct {
	indent int
	owner  *pyStmt // nil for the module
	stmts  []*pyStmt
	end    int
}

type pyTree struct {
	top    []*pyStmt
	broken bool
}

// pyBlocks assembles the events into statements and blocks with
// tree-sitter's indentation rules (see tokens.go).
func pyBlocks(events []pyEvent) pyTree {
	stack := []*pyBlock{{indent: 0, end: -1}}
	var pending *pyStmt // its ':' waits for an indented block
	var decorators []*pyLine
	var comments []pyComment
	pop := func() {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		b.owner.body = b.stmts
		b.owner.end = max(b.owner.end, b.end)
		parent := stack[len(stack)-1]
		parent.end = max(parent.end, b.owner.end)
	}
	top := func() *pyBlock { return stack[len(stack)-1] }
	// dedent closes blocks before a line indented ind: for each comment
	// line in between first (a block keeps a trailing comment indented as
	// deep as itself), then for the code line.
	dedent := func(ind int) {
		for _, c := range comments {
			for len(stack) > 1 && ind < top().indent && c.indent < top().indent {
				pop()
			}
			top().end = max(top().end, c.row)
		}
		comments = comments[:0]
		for len(stack) > 1 && ind < top().indent {
			pop()
		}
	}
	for _, ev := range events {
		if ev.line == nil {
			comments = append(comments, ev.comment)
			continue
		}
		l := ev.line
		if pending != nil && l.indent > top().indent {
			stack = append(stack, &pyBlock{indent: l.indent, owner: pending, end: -1})
			comments = comments[:0]
		} else {
			dedent(l.indent)
		}
		pending = nil
		b := top()
		b.end = max(b.end, l.last)
		if l.decorator {
			decorators = append(decorators, l)
			continue
		}
		st := &pyStmt{line: l, decorators: decorators, end: l.last}
		decorators = nil
		b.stmts = append(b.stmts, st)
		if l.opener {
			pending = st
		}
	}
	dedent(0)
	return pyTree{top: stack[0].stmts}
}

// pyOutline turns statements into entries.
type pyOutline struct {
	src   string
	lines *outline.Lines
	res   outline.Result
}

func (w *pyOutline) text(t pyToken) string { return w.src[t.start:t.end] }
func (w *pyOutline) row(t pyToken) int     { return w.lines.LineOf(int(t.start)) }

// add records an entry named by token name, spanning rows first..last
// (0-based).
func (w *pyOutline) add(kind, name string, nameRow, first, last int) *outline.Entry {
	w.res.Entries = append(w.res.Entries, outline.Entry{Kind: kind, Name: name, NameLine: nameRow, Start: first + 1, End: last + 1})
	return &w.res.Entries[len(w.res.Entries)-1]
}

func (w *pyOutline) statement(st *pyStmt) {
	if st.line.unclosed {
		return
	}
	toks := st.line.tokens
	switch kw := w.keyword(toks); kw {
	case "def":
		w.function(st, outline.KindFunction, "")
	case "class":
		name, ok := w.defName(st)
		if !ok {
			return
		}
		w.add(outline.KindClass, w.text(name), w.row(name), st.start(), st.end)
		for _, m := range st.body {
			if w.keyword(m.line.tokens) == "def" {
				w.function(m, outline.KindMethod, w.text(name))
			}
		}
	default:
		for _, part := range splitStatements(w.src, toks) {
			w.simple(part)
		}
	}
}

// keyword is "def" for def and async def, "class", or "" otherwise.
func (w *pyOutline) keyword(toks []pyToken) string {
	if len(toks) > 1 && w.text(toks[0]) == "async" && w.text(toks[1]) == "def" {
		return "def"
	}
	if k := w.text(toks[0]); k == "def" || k == "class" {
		return k
	}
	return ""
}

// defName is the name after def or class.
func (w *pyOutline) defName(st *pyStmt) (pyToken, bool) {
	toks := st.line.tokens
	i := 1
	if w.text(toks[0]) == "async" {
		i = 2
	}
	if i >= len(toks) || toks[i].kind != 'n' {
		w.res.ParseComplete = false
		return pyToken{}, false
	}
	if i+1 >= len(toks) || !strings.Contains("([:", w.text(toks[i+1])) {
		w.res.ParseComplete = false // def f without (…), class C without ':' or bases
	}
	return toks[i], true
}

func (w *pyOutline) function(st *pyStmt, kind, receiver string) {
	if name, ok := w.defName(st); ok {
		w.add(kind, w.text(name), w.row(name), st.start(), st.end).Receiver = receiver
	}
}

// splitStatements splits a logical line at ';' into simple statements.
func splitStatements(src string, toks []pyToken) [][]pyToken {
	var parts [][]pyToken
	from := 0
	for i, t := range toks {
		if t.kind == 'o' && src[t.start:t.end] == ";" {
			if i > from {
				parts = append(parts, toks[from:i])
			}
			from = i + 1
		}
	}
	if from < len(toks) {
		parts = append(parts, toks[from:])
	}
	return parts
}

// simple outlines one simple statement: an import, or an assignment to
// (or annotation of) a plain name.
func (w *pyOutline) simple(toks []pyToken) {
	first := w.lines.LineOf(int(toks[0].start)) - 1
	last := w.lines.LineOf(int(toks[len(toks)-1].end)-1) - 1
	switch w.text(toks[0]) {
	case "import":
		w.imports(toks, first, last)
		return
	case "from":
		if len(toks) > 1 {
			end := 1
			for end < len(toks) && w.text(toks[end]) != "import" {
				end++
			}
			if end > 1 {
				w.add(outline.KindImport, w.src[toks[1].start:toks[end-1].end], w.row(toks[1]), first, last)
			}
		}
		return
	}
	if len(toks) < 2 || toks[0].kind != 'n' || pyKeyword(w.text(toks[0])) {
		return
	}
	if op := w.text(toks[1]); toks[1].kind == 'o' && (op == "=" || op == ":") {
		name := w.text(toks[0])
		kind := outline.KindVariable
		if constantName(name) {
			kind = outline.KindConstant
		}
		w.add(kind, name, w.row(toks[0]), first, last)
	}
}

// imports lists each module of `import a.b as c, d`.
func (w *pyOutline) imports(toks []pyToken, first, last int) {
	for i := 1; i < len(toks); {
		start := i
		for i < len(toks) && w.text(toks[i]) != "," && w.text(toks[i]) != "as" {
			i++
		}
		if i > start {
			w.add(outline.KindImport, w.src[toks[start].start:toks[i-1].end], w.row(toks[start]), first, last)
		}
		for i < len(toks) && w.text(toks[i]) != "," {
			i++ // the alias
		}
		i++
	}
}

// pyKeyword reports Python's reserved words: never an assignment target.
func pyKeyword(w string) bool {
	switch w {
	case "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
		"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
		"import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
		"while", "with", "yield":
		return true
	}
	return false
}

// constantName reports whether name is spelled like a constant (UPPER_CASE).
func constantName(name string) bool {
	hasUpper := false
	for _, r := range name {
		if unicode.IsLower(r) {
			return false
		}
		hasUpper = hasUpper || unicode.IsUpper(r)
	}
	return hasUpper
}
