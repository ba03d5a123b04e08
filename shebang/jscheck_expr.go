package shebang

import "strings"

// Expression rules of the statement automaton (jscheck.go).

// operand accepts a token that starts an operand. After an operand it is
// a tagged template (a call), a new statement, or an error.
func (c *jsChecker) operand(t jsToken) bool {
	switch c.state {
	case sOperator, sAfterBlock:
		if (t.kind == jsTemplate || t.kind == jsTmplHead) && c.state == sOperator {
			c.effect = true // a tagged template
			return true
		}
		if p := c.prev(); !t.nl && isWord(p, "async") && c.state == sOperator && t.kind == jsIdent && isPunct(c.peek(), "=>") {
			break // async x => …
		}
		if !c.boundary(t) {
			return false
		}
	}
	c.begin(t)
	c.set(sOperator, false, false)
	return true
}

func (c *jsChecker) ident(t jsToken) bool {
	w := t.text
	if w[0] == '#' && !c.privateRef(w) {
		return false
	}
	if c.state == sOperator || c.state == sAfterBlock {
		switch w {
		case "in", "instanceof", "of":
			if f := c.top(); f != nil && f.kind == fFor && w != "instanceof" {
				f.ofIn = true
			}
			if w != "of" || c.state == sOperator && c.inKind(fFor) {
				return c.binary()
			}
		}
	}
	next := c.peek()
	switch w {
	case "export", "in", "instanceof", "extends", "enum":
		return false // Code Mode scripts are not modules; export is a shell builtin
	case "import":
		if !isPunct(next, "(") && !isPunct(next, ".") {
			return false
		}
	case "if", "for", "while", "switch", "with":
		if !c.statementStart(t) {
			return false
		}
		c.begin(t)
		c.nextSwitch = w == "switch"
		c.state = sHeader
		return true
	case "catch", "finally":
		c.nextCatch = w == "catch"
		if w == "catch" && isPunct(next, "(") {
			c.state = sHeader
			return true
		}
		c.bodyNext = true
		c.body = jsFrame{kind: fBlock, catch: w == "catch"}
		c.set(sOperand, true, false)
		return true
	case "do", "try":
		if !c.statementStart(t) || w == "try" && !isPunct(next, "{") {
			return false
		}
		c.begin(t)
		c.nextTry = w == "try"
		if w == "do" {
			c.marks = append(c.marks, jsMark{depth: len(c.frames), do: true})
			c.loopNext = true
		}
		c.set(sOperand, true, false)
		return true
	case "return", "break", "continue", "throw", "debugger", "case":
		return c.jump(t)
	case "const", "var", "let":
		if w == "let" && !(next.kind == jsIdent && !isReserved(next.text) || isPunct(next, "[") || isPunct(next, "{")) {
			break // let as a name
		}
		if !c.statementStart(t) {
			return false
		}
		c.begin(t)
		c.declDepth, c.declConst, c.binding = len(c.frames)+1, w == "const", false
		c.set(sBinding, false, false)
		return true
	case "class":
		decl := c.state == sOperand && c.stmtStart
		if !c.prefixable(t) {
			return false
		}
		c.body = jsFrame{kind: fClass, decl: decl}
		c.set(sClassName, false, false)
		return true
	case "function":
		async := c.state == sOperator && isWord(c.prev(), "async") && !t.nl
		decl := c.state == sOperand && c.stmtStart || async && c.asyncStmt
		if !async && !c.prefixable(t) {
			return false
		}
		c.asyncStmt = false
		c.body = jsFrame{kind: fParams, fn: 1 + b2u(async), decl: decl, want: -1}
		c.set(sFunction, false, false)
		return true
	case "typeof", "void", "delete", "await", "new", "yield":
		if w == "await" && !c.awaitOK() || !c.prefixable(t) {
			return false
		}
		c.effect = c.effect || w != "typeof" && w != "void"
		c.set(sOperand, false, w == "yield")
		return true
	case "default":
		if !c.stmtStart || !isPunct(next, ":") || !c.inKind(fBlock) {
			return false
		}
		c.labelColon = true
	case "super", "this", "null", "true", "false":
	case "async":
		c.asyncStmt = c.state == sOperand && c.stmtStart && isWord(next, "function") && !next.nl
	default:
		if isReserved(w) {
			return false
		}
		if c.stmtStart && c.state == sOperand && isPunct(next, ":") && c.statementLevel() {
			c.begin(t)
			c.labelColon, c.labelled = true, true // a label: a statement must follow its :
			c.set(sOperator, false, false)
			return true
		}
	}
	return c.operand(t)
}

// jump reads return, break, continue, throw, debugger and case.
func (c *jsChecker) jump(t jsToken) bool {
	if !c.statementStart(t) {
		return false
	}
	labelled := c.peek().kind == jsIdent && !c.peek().nl
	switch {
	case t.text == "continue" && !c.inLoop(false), t.text == "break" && !labelled && !c.inLoop(true):
		return false // no surrounding loop (or switch)
	}
	c.begin(t)
	switch t.text {
	case "debugger":
		c.set(sOperator, false, false)
	case "throw", "case":
		c.labelColon = t.text == "case"
		c.set(sOperand, false, false)
	default:
		c.set(sOperand, false, true) // a value or label may follow on the same line
	}
	return true
}

// prefixable admits a prefix (operator or keyword) where an operand may
// start, or at a new statement; an operand must follow it.
func (c *jsChecker) prefixable(t jsToken) bool {
	if isWord(c.prev(), "new") && !isWord(t, "new") && !isWord(t, "class") && !isWord(t, "function") {
		return false // new takes a member expression
	}
	if c.state != sOperand && !c.boundary(t) {
		return false
	}
	c.begin(t)
	c.set(sOperand, false, false)
	return true
}

func (c *jsChecker) binary() bool {
	if c.state != sOperator && c.state != sAfterBlock {
		return false
	}
	c.set(sOperand, false, false)
	return true
}

// assignable: the tokens before form an assignment target (a name, a
// member or element access, or an array or object literal as a pattern)
// that starts where an assignment expression may start.
func (c *jsChecker) assignable() bool {
	if c.state != sOperator {
		return false
	}
	p := c.prev()
	switch {
	case p.kind == jsIdent && !isReserved(p.text), isPunct(p, "]"), isPunct(p, "}"):
	default:
		return false
	}
	start := c.chainStart(c.i - 1)
	return start >= 0 && arrowStart(c.at(start-1))
}

// chainStart is the index of the first token of the member chain (a.b[c]
// .d(e).f) that ends at token j, or -1 for an optional chain.
func (c *jsChecker) chainStart(j int) int {
	for j >= 0 {
		t := c.toks[j]
		switch {
		case isPunct(t, ")"), isPunct(t, "]"), isPunct(t, "}"):
			open := c.matchingOpen(j)
			if open < 0 {
				return -1
			}
			if p := c.at(open - 1); !isPunct(t, "}") && (p.kind == jsIdent && !isReserved(p.text) || isPunct(p, ")") || isPunct(p, "]")) {
				j = open - 1 // a call or element access on what precedes
				continue
			}
			return open
		case t.kind == jsIdent:
			switch p := c.at(j - 1); {
			case isPunct(p, "."):
				j -= 2
				continue
			case isPunct(p, "?."):
				return -1
			}
			return j
		default:
			return j
		}
	}
	return -1
}

// matchingOpen is the index of the bracket that the closing one at j
// closes, or -1.
func (c *jsChecker) matchingOpen(j int) int {
	depth := 0
	for k := j; k >= 0; k-- {
		t := c.toks[k]
		if t.kind != jsPunct {
			continue
		}
		switch t.text {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return -1
}

// awaitOK: await may be used here, not inside a non-async function.
func (c *jsChecker) awaitOK() bool {
	for i := len(c.frames) - 1; i >= 0; i-- {
		if f := c.frames[i]; f.fn != 0 {
			return f.fn == 2
		}
	}
	return true // Code Mode runs the script as an async function body
}

func (c *jsChecker) punct(t jsToken) bool {
	switch p := t.text; p {
	case "(", "[":
		return c.open(t)
	case "{":
		return c.openBrace(t)
	case ")", "]", "}":
		return c.close(t)
	case ";":
		return c.semicolon(t)
	case ",":
		return c.comma()
	case ".", "?.":
		if c.state != sOperator && c.state != sAfterBlock {
			return false
		}
		c.set(sMember, false, false)
		return true
	case "...":
		if c.state != sOperand || !(c.inKind(fParen) || c.inKind(fBracket)) {
			return false
		}
		c.set(sOperand, false, false)
		return true
	case "++", "--":
		c.effect = true
		if c.state == sOperator && !t.nl {
			return c.assignable() // postfix
		}
		return c.prefixable(t)
	case "!", "~":
		return c.prefixable(t)
	case "+", "-":
		if c.state == sOperand {
			return c.prefixable(t)
		}
		return c.binary()
	case "=>":
		return c.arrow(t)
	case "?":
		return c.binary() && c.ternaries(+1)
	case ":":
		if c.labelColon && c.statementLevel() && (c.state == sOperator || c.state == sAfterBlock) {
			c.labelColon = false
			c.set(sOperand, true, false) // the labelled statement or the case's statements
			return true
		}
		return c.ternaries(-1) && c.binary()
	}
	if isAssignment(t.text) {
		init := c.initializer && t.text == "="
		c.initializer = false
		if !init && !c.assignable() || !c.binary() {
			return false
		}
		c.effect = true
		return true
	}
	return c.binary()
}

// arrow accepts => after arrow parameters: one name or a parenthesized
// list, on the same line, where an assignment expression may start.
func (c *jsChecker) arrow(t jsToken) bool {
	if t.nl || c.state != sOperator {
		return false
	}
	p := c.prev()
	switch {
	case p.kind == jsIdent && !isReserved(p.text):
		if !arrowStart(c.at(c.i - 2)) {
			return false
		}
	case isPunct(p, ")"):
		if !c.arrowParen {
			return false
		}
	default:
		return false
	}
	c.arrowFn = 1
	if p.kind == jsIdent && isWord(c.at(c.i-2), "async") || isPunct(p, ")") && c.asyncParen {
		c.arrowFn = 2
	}
	c.set(sOperand, false, false)
	c.next = fBlock
	return true
}

// arrowStart: arrow parameters may follow t (an assignment expression may
// start after it).
func arrowStart(t jsToken) bool {
	switch t.kind {
	case 0:
		return true
	case jsPunct:
		switch t.text {
		case "(", "[", ",", "{", ";", "=>", ":", "?", "}", "${":
			return true
		}
		return isAssignment(t.text)
	case jsIdent:
		return t.text == "return" || t.text == "yield" || t.text == "async"
	case jsTmplHead, jsTmplMid:
		return true
	}
	return false
}

// ternaries counts the open ? of conditionals at the current depth; a :
// needs one.
func (c *jsChecker) ternaries(delta int) bool {
	n := &c.openTernaries
	if f := c.top(); f != nil {
		n = &f.ternaries
	}
	if *n+delta < 0 {
		return false
	}
	*n += delta
	return true
}

func isAssignment(p string) bool {
	switch p {
	case "=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>=", "&=", "|=", "^=", "&&=", "||=", "??=":
		return true
	}
	return false
}

func (c *jsChecker) comma() bool {
	switch c.state {
	case sOperand:
		return c.inKind(fBracket) && (c.prevIs(jsPunct, "[") || c.prevIs(jsPunct, ","))
	case sOperator, sAfterBlock:
	default:
		return false
	}
	if c.binding && !c.afterBinding(jsToken{kind: jsPunct, text: ","}) {
		return false
	}
	c.binding = false
	if f := c.top(); f != nil && f.ternaries > 0 || f == nil && c.openTernaries > 0 {
		return false
	}
	switch {
	case c.declDepth == len(c.frames)+1, c.inKind(fParams), c.inKind(fBracket) && c.top().pattern:
		c.set(sBinding, false, false)
	default:
		c.set(sOperand, false, false)
	}
	return true
}

func (c *jsChecker) semicolon(t jsToken) bool {
	if f := c.top(); f != nil && f.kind == fFor {
		if c.dangling() || f.semis == 2 || f.ternaries > 0 {
			return false
		}
		if c.binding && !c.afterBinding(t) {
			return false
		}
		f.semis++
		c.endDeclaration(len(c.frames))
		c.set(sOperand, true, false)
		return true
	}
	if !c.statementLevel() || c.dangling() {
		return false
	}
	if c.binding && !c.afterBinding(t) {
		return false
	}
	c.begin(t)
	c.endStatement()
	return !c.bad
}

func (c *jsChecker) open(t jsToken) bool {
	if t.text == "[" {
		switch c.state {
		case sOperand:
			c.begin(t)
		case sOperator:
			return c.push(jsFrame{kind: fBracket, index: true}, sOperand)
		case sAfterBlock:
			if !c.boundary(t) {
				return false
			}
			c.begin(t)
		default:
			return false
		}
		return c.push(jsFrame{kind: fBracket}, sOperand)
	}
	f := jsFrame{kind: fParen}
	switch c.state {
	case sOperand:
		f.arrowable = arrowStart(c.prev())
		c.begin(t)
	case sOperator:
		f.arrowable = isWord(c.prev(), "async") && arrowStart(c.at(c.i-2))
		f.call = true
		c.effect = true // a call
	case sAfterBlock:
		if c.statementLevel() {
			if !c.boundary(t) {
				return false
			}
			f.arrowable = true
			c.begin(t)
		} else {
			c.effect = true
		}
	default:
		return false
	}
	return c.push(f, sOperand)
}

func (c *jsChecker) openBrace(t jsToken) bool {
	f := jsFrame{kind: fBlock, try: c.nextTry, catch: c.nextCatch, switchBody: c.nextSwitch, loop: c.loopNext}
	c.nextTry, c.nextCatch, c.nextSwitch, c.loopNext = false, false, false, false
	switch {
	case c.bodyNext:
		c.bodyNext = false
		if c.body.kind == fBlock {
			f.fn, f.method, f.decl, f.catch = c.body.fn, c.body.method, c.body.decl, c.body.catch
		}
		c.body = jsFrame{}
	case c.state == sOperand && c.next == fClass:
		f.kind, f.decl = fClass, c.body.decl
	case c.state == sOperand && c.prevIs(jsPunct, "=>"):
		f.fn = c.arrowFn
	case c.state == sOperand && c.stmtStart:
		c.begin(t)
	case c.state == sOperand:
		f.kind = fObject
	case c.state == sOperator && c.next == fClass:
		f.kind, f.decl = fClass, c.body.decl
	case c.state == sAfterBlock && c.boundary(t):
		c.begin(t)
	default:
		return false
	}
	c.next = fBlock
	if f.kind == fBlock {
		return c.push(f, sOperand)
	}
	return c.push(f, sKey)
}

func (c *jsChecker) close(t jsToken) bool {
	f := c.top()
	if f == nil || f.ternaries > 0 || c.labelled {
		return false
	}
	emptyOK := c.prevIs(jsPunct, "(") || c.prevIs(jsPunct, "[") || c.prevIs(jsPunct, ",")
	switch t.text {
	case ")":
		switch {
		case f.kind == fControl && (c.state == sOperand || c.state == sBinding):
			return false // if (), catch ()
		case f.kind != fParen && f.kind != fParams && f.kind != fControl && f.kind != fFor:
			return false
		case c.state == sBinding && !emptyOK, c.dangling() && !emptyOK:
			return false
		}
	case "]":
		if f.kind != fBracket || (c.dangling() || c.state == sBinding) && (!emptyOK || f.index) {
			return false
		}
	default:
		if f.kind != fBlock && f.kind != fObject && f.kind != fClass || c.dangling() {
			return false
		}
	}
	if t.text == ")" && f.kind == fParen && !f.call && (emptyOK || c.prevIs(jsPunct, "...")) && !isPunct(c.peek(), "=>") {
		return false // () and (a,) are arrow parameters only
	}
	if c.binding && !c.afterBinding(t) {
		return false
	}
	c.binding = false
	frame := *f
	c.frames = c.frames[:len(c.frames)-1]
	return c.closed(frame)
}

// closed sets the state after frame was closed.
func (c *jsChecker) closed(frame jsFrame) bool {
	d := len(c.frames)
	c.arrowParen = false
	switch frame.kind {
	case fControl, fFor:
		if frame.kind == fFor && frame.semis != 2 && !(frame.semis == 0 && frame.ofIn) {
			return false
		}
		c.endDeclaration(d + 1)
		c.set(sOperand, true, false)
		switch frame.keyword {
		case "if":
			c.marks = append(c.marks, jsMark{depth: d})
		case "switch", "catch":
			c.bodyNext = true
			c.body = jsFrame{kind: fBlock, catch: frame.keyword == "catch"}
		case "do":
			c.endStatement() // do … while (…) is complete
		default:
			c.loopNext = frame.keyword != "with" // for, while
		}
	case fParams:
		if frame.want >= 0 && frame.count != int(frame.want) {
			return false // a getter takes no parameter, a setter one
		}
		c.bodyNext = true
		c.body = jsFrame{kind: fBlock, fn: frame.fn, method: frame.method, decl: frame.decl}
		c.set(sOperator, false, false)
	case fParen:
		c.arrowParen = frame.arrowable
		c.asyncParen = frame.arrowable && frame.call
		c.set(sOperator, false, false)
	case fBracket, fObject:
		c.binding = frame.pattern && (c.declDepth == d+1 || c.inKind(fParams) || c.inKind(fBracket) && c.top().pattern ||
			c.inKind(fObject) && c.top().pattern || c.inKind(fControl) && c.top().keyword == "catch")
		c.set(sOperator, false, false)
		if frame.computed {
			c.set(sAfterKey, false, false)
			c.keyModifier, c.keyIdent = false, false
		}
	case fBlock:
		c.needHandler = frame.try
		c.finallyOK = frame.catch
		c.bodyEnded(d)
		c.set(sAfterBlock, false, false)
		if frame.method {
			c.set(sMethodEnd, false, false)
		}
		if frame.decl {
			c.endStatement() // a declaration is not an operand
		}
	case fClass:
		if !c.closeClass(frame) {
			return false
		}
		c.set(sAfterBlock, false, false)
		if frame.decl {
			c.endStatement()
		}
	}
	return true
}

// isReserved: words that cannot be used as a name.
func isReserved(w string) bool {
	switch w {
	case "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
		"else", "export", "extends", "finally", "for", "function", "if", "import", "in", "instanceof",
		"new", "return", "super", "switch", "this", "throw", "try", "typeof", "var", "void", "while",
		"with", "null", "true", "false", "enum":
		return true
	}
	return false
}

// isPrefixKeyword: keywords an operand follows (or may follow).
func isPrefixKeyword(w string) bool {
	switch w {
	case "typeof", "void", "delete", "await", "new", "yield", "return", "throw", "case":
		return true
	}
	return false
}

// validNumber checks a numeric literal: decimal with optional fraction and
// exponent, 0x/0o/0b, numeric separators only between digits, a BigInt n
// only on integers.
func validNumber(s string) bool {
	body, big := s, false
	if n := len(s); n > 1 && s[n-1] == 'n' {
		body, big = s[:n-1], true
	}
	if len(body) > 2 && body[0] == '0' && strings.IndexByte("xob", body[1]|0x20) >= 0 {
		digits := "01"
		switch body[1] | 0x20 {
		case 'x':
			digits = "0123456789abcdefABCDEF"
		case 'o':
			digits = "01234567"
		}
		return digitRun(body[2:], digits) == len(body)-2
	}
	i := digitRun(body, "0123456789")
	if big {
		return i == len(body) && i > 0 && (body[0] != '0' || i == 1)
	}
	if i < len(body) && body[i] == '.' {
		i++
		i += digitRun(body[i:], "0123456789")
	}
	if i == 0 || body == "." {
		return false
	}
	if i < len(body) && (body[i] == 'e' || body[i] == 'E') {
		i++
		if i < len(body) && (body[i] == '+' || body[i] == '-') {
			i++
		}
		n := digitRun(body[i:], "0123456789")
		if n == 0 {
			return false
		}
		i += n
	}
	return i == len(body)
}

// digitRun is the length of the leading digits of s, with single _
// separators between digits.
func digitRun(s, digits string) int {
	n := 0
	for n < len(s) {
		switch {
		case strings.IndexByte(digits, s[n]) >= 0:
			n++
		case s[n] == '_' && n > 0 && n+1 < len(s) && strings.IndexByte(digits, s[n+1]) >= 0 && s[n-1] != '_':
			n++
		default:
			return n
		}
	}
	return n
}
