package shebang

// jsStatements checks rules 2 and 3 of jsrecognize.go: the tokens form
// JavaScript statements, and every top-level expression statement does
// something. It is a pushdown automaton over tokens: a state says what may
// come next (an operand, an operator, a property name, a binding, an
// object key, a function or class head), and a stack of frames says what
// encloses it (call or group parentheses, parameters, a control header,
// brackets, a block, an object literal or pattern, a class body, a
// template substitution). It builds no tree and evaluates nothing.
//
// The rules are ECMAScript's, token by token: which token may follow which
// (operand/operator alternation, prefix and postfix operators, assignment
// targets, arrow parameters), where a line break ends a statement
// (automatic semicolon insertion, and the restricted productions after
// return, break, continue, yield and before =>), what binds a name
// (declarations, parameters, catch, destructuring patterns), and which
// statements need a partner (try needs catch or finally, else an if,
// switch a body of case clauses, a conditional's ? its :).
// jscheck_expr.go holds the expression rules, jscheck_bind.go the
// bindings, functions, classes and object members.

type jsState uint8

const (
	sOperand       jsState = iota // an operand or a prefix operator
	sOperator                     // an operator, call, member access, or the end
	sMember                       // a property name after . or ?.
	sHeader                       // the ( of if/for/while/switch/catch/with
	sAfterBlock                   // after a block's }: a new statement, or an operator
	sBinding                      // a name or pattern that a declaration binds
	sKey                          // an object or class member key
	sAfterKey                     // after a key: : ( , } = or a method body
	sFunction                     // after function: *, a name, then (
	sClassName                    // after class: a name, extends or {
	sClassHeritage                // after a class name: extends or {
	sMethodEnd                    // after a method's body: , ; } or the next member
)

type frameKind uint8

const (
	fParen    frameKind = iota // ( … ) of a call or group
	fParams                    // ( … ) of a function's or method's parameters
	fControl                   // ( … ) of if, while, switch, catch, with
	fFor                       // ( … ) of for
	fBracket                   // [ … ]
	fBlock                     // { … } of statements
	fObject                    // { … } object literal or pattern
	fClass                     // { … } class body
	fTemplate                  // ${ … }
)

type jsFrame struct {
	kind       frameKind
	keyword    string   // fControl: if, while, switch, catch or with
	try        bool     // fBlock of a try: catch or finally must follow
	catch      bool     // fBlock of a catch: finally may follow
	switchBody bool     // fBlock of a switch: case clauses
	pattern    bool     // fObject/fBracket that binds names
	computed   bool     // fBracket of a computed key: the key ends with ]
	arrowable  bool     // fParen opened where arrow parameters may start
	semis      int      // fFor: semicolons at its level
	ofIn       bool     // fFor: of or in at its level
	ternaries  int      // conditionals whose : has not come yet
	call       bool     // fParen of a call's arguments
	fn         uint8    // fParams, and the fBlock of a function body: 1 sync, 2 async
	method     bool     // fParams and body of an object or class method
	decl       bool     // fParams and body of a function declaration, fClass of a class declaration
	want       int8     // fParams: the parameter count a getter (0) or setter (1) takes, else -1
	count      int      // fParams: parameters read
	privDecl   []string // fClass: private names it declares
	privRefs   []string // fClass: private names used inside it
	loop       bool     // fBlock of a loop's body: continue and break may be used
	index      bool     // fBracket of an element access
}

type jsChecker struct {
	toks      []jsToken
	i         int
	state     jsState
	frames    []jsFrame
	stmtStart bool // sOperand at a statement's start
	optional  bool // sOperand where the operand may be left out
	// declDepth is len(frames)+1 of the declaration list being read (0:
	// none); binding is set right after a bound name, before = or the
	// next declarator.
	declDepth     int
	declConst     bool
	binding       bool
	next          frameKind // the kind of the next { (fBlock unless class said)
	nextTry       bool      // the next { is a try block
	nextCatch     bool      // the next { is a catch block
	nextSwitch    bool      // the next { is a switch body
	bodyNext      bool      // only { may come: a function body or switch body
	arrowParen    bool      // the ) just read may close arrow parameters
	marks         []jsMark  // statements in progress whose end matters (if, do)
	loopNext      bool      // a loop header was read: its body follows
	needWhile     bool      // a do statement's body ended: while must follow
	elseOK        bool      // the previous token ended an if's consequent
	needHandler   bool      // after a try block
	finallyOK     bool      // after a catch block
	keyModifier   bool      // the last key was get/set/async/static or *
	keyIdent      bool      // the last key was a name (a shorthand may end it)
	labelColon    bool      // a case test or label is read: its : starts a statement
	labelled      bool      // a label's : was read: a statement must follow
	keyMethod     bool      // a modifier preceded the key: only a method may follow
	keyAsync      bool      // …and it was async
	keyAccessor   int8      // …and it was get (0 parameters) or set (1), else -1
	asyncStmt     bool      // async starts this statement: function follows
	body          jsFrame   // what the next ( or { opens: a function's parameters or body
	arrowFn       uint8     // => was read: 2 if the arrow function is async, else 1
	asyncParen    bool      // the ) just read closed async( … ): async arrow parameters
	initializer   bool      // the = about to be read follows a bound name
	doWhile       bool      // the while being read ends a do statement
	openTernaries int       // top-level conditionals whose : has not come yet
	inExpr        bool      // the top-level statement is an expression statement
	effect        bool      // …and it did something
	bad           bool
}

// jsMark is a statement whose body's end needs something: an if's
// consequent may be followed by else, a do's body must be by while.
type jsMark struct {
	depth int
	do    bool
}

// jsStatements reports whether toks are JavaScript statements that pass
// rule 3.
func jsStatements(toks []jsToken) bool {
	c := &jsChecker{toks: toks, stmtStart: true, next: fBlock}
	for c.i = 0; c.i < len(toks); c.i++ {
		t := toks[c.i]
		needHandler, finallyOK, elseOK, needWhile := c.needHandler, c.finallyOK, c.elseOK, c.needWhile
		c.needHandler, c.finallyOK, c.elseOK, c.needWhile = false, false, false, false
		switch {
		case needWhile:
			if !isWord(t, "while") {
				return false
			}
			c.doWhile = true
		case t.kind == jsIdent && (t.text == "catch" || t.text == "finally"):
			if !needHandler && !(finallyOK && t.text == "finally") {
				return false
			}
		case needHandler:
			return false
		case t.kind == jsIdent && t.text == "else":
			if !c.elseClause(t, elseOK) {
				return false
			}
			continue
		}
		if !isPunct(t, "{") {
			c.loopNext = false
		}
		if !c.step(t) || c.bad {
			return false
		}
	}
	if len(c.frames) > 0 || c.needHandler || c.bodyNext || c.labelled || c.needWhile {
		return false
	}
	switch c.state {
	case sOperator, sAfterBlock:
		if c.binding && !c.afterBinding(jsToken{nl: true}) {
			return false
		}
	case sOperand:
		if !c.stmtStart && !c.optional {
			return false
		}
	default:
		return false
	}
	c.endStatement()
	return !c.bad
}

func (c *jsChecker) prev() jsToken { return c.at(c.i - 1) }

func (c *jsChecker) peek() jsToken { return c.at(c.i + 1) }

func (c *jsChecker) at(i int) jsToken {
	if i < 0 || i >= len(c.toks) {
		return jsToken{}
	}
	return c.toks[i]
}

func (c *jsChecker) prevIs(kind jsKind, text string) bool {
	t := c.prev()
	return t.kind == kind && t.text == text
}

func isPunct(t jsToken, p string) bool { return t.kind == jsPunct && t.text == p }

func isWord(t jsToken, w string) bool { return t.kind == jsIdent && t.text == w }

func (c *jsChecker) set(state jsState, stmtStart, optional bool) {
	c.state, c.stmtStart, c.optional = state, stmtStart, optional
}

func (c *jsChecker) top() *jsFrame {
	if len(c.frames) == 0 {
		return nil
	}
	return &c.frames[len(c.frames)-1]
}

// inKind reports whether the innermost frame is of kind k.
func (c *jsChecker) inKind(k frameKind) bool { f := c.top(); return f != nil && f.kind == k }

// statementLevel: statements, not expressions or members, are read here.
func (c *jsChecker) statementLevel() bool { return len(c.frames) == 0 || c.inKind(fBlock) }

// dangling: an operator still waits for its operand.
func (c *jsChecker) dangling() bool { return c.state == sOperand && !c.stmtStart && !c.optional }

func (c *jsChecker) push(f jsFrame, state jsState) bool {
	if len(c.frames) >= maxJSDepth {
		return false
	}
	c.frames = append(c.frames, f)
	c.set(state, f.kind == fBlock, false)
	return true
}

// endStatement closes a statement at the current depth: a top-level
// expression statement that did nothing fails rule 3, a declaration or
// case that is incomplete fails, and an if's consequent that ends lets
// an else follow.
func (c *jsChecker) endStatement() {
	d := len(c.frames)
	if c.labelColon || c.labelled {
		c.bad = true // case without its :, or a label without its statement
	}
	if d == 0 {
		if c.inExpr && !c.effect || c.openTernaries > 0 {
			c.bad = true
		}
		c.inExpr, c.effect = false, false
	}
	c.endDeclaration(d)
	c.bodyEnded(d)
	c.set(sOperand, true, false)
}

// bodyEnded notes that a statement at depth d ended: the innermost if or
// do waiting there gets its else chance or its while.
func (c *jsChecker) bodyEnded(d int) {
	if n := len(c.marks); n > 0 && c.marks[n-1].depth == d {
		m := c.marks[n-1]
		c.marks = c.marks[:n-1]
		c.elseOK, c.needWhile = !m.do, m.do
	}
}

// inLoop: continue (or, with switch, break) has a target here.
func (c *jsChecker) inLoop(orSwitch bool) bool {
	for i := len(c.frames) - 1; i >= 0; i-- {
		f := c.frames[i]
		switch {
		case f.loop || orSwitch && f.switchBody:
			return true
		case f.fn != 0:
			return false
		}
	}
	return false
}

// endDeclaration ends a declaration list read at depth d or deeper.
func (c *jsChecker) endDeclaration(d int) {
	if c.declDepth == 0 || c.declDepth-1 < d {
		return
	}
	if c.declConst && c.binding {
		c.bad = true // Missing initializer in const declaration
	}
	c.declDepth, c.binding = 0, false
}

// boundary starts a new statement before t where automatic semicolon
// insertion allows one (a line break) or a block has just ended.
func (c *jsChecker) boundary(t jsToken) bool {
	if !t.nl && c.state != sAfterBlock || !c.statementLevel() {
		return false
	}
	if c.binding && !c.afterBinding(t) {
		return false
	}
	c.endStatement()
	return !c.bad
}

// begin marks the first token of a top-level statement.
func (c *jsChecker) begin(t jsToken) {
	if c.state == sOperand && c.stmtStart && len(c.frames) == 0 {
		c.inExpr = !startsDeclaration(t, c.peek())
	}
	c.labelled = false
}

// startsDeclaration: statements that are not expression statements.
func startsDeclaration(t, next jsToken) bool {
	switch t.kind {
	case jsPunct:
		return t.text == ";" || t.text == "{"
	case jsIdent:
		switch t.text {
		case "if", "for", "while", "do", "switch", "try", "const", "let", "var", "function", "class",
			"return", "throw", "break", "continue", "debugger", "with":
			return true
		case "async":
			return isWord(next, "function") && !next.nl
		}
	}
	return false
}

// elseClause accepts else right after an if's consequent.
func (c *jsChecker) elseClause(t jsToken, ok bool) bool {
	if c.state == sOperator && t.nl && c.statementLevel() {
		c.endStatement()
		ok = c.elseOK && !c.bad
		c.elseOK = false
	}
	if !ok {
		return false
	}
	c.set(sOperand, true, false)
	return true
}

// statementStart admits a keyword that only starts a statement: at a
// statement's start, or as a new statement after a line break or a block.
func (c *jsChecker) statementStart(t jsToken) bool {
	if c.state == sOperand && c.stmtStart {
		return true
	}
	return (c.state == sOperator || c.state == sAfterBlock) && c.boundary(t)
}

func (c *jsChecker) step(t jsToken) bool {
	if c.bodyNext && !isPunct(t, "{") {
		return false
	}
	if c.optional && t.nl && c.state == sOperand {
		c.endStatement() // return, break, continue and yield end at a line break
	}
	if f := c.top(); f != nil && f.switchBody && isPunct(c.prev(), "{") && !isWord(t, "case") && !isWord(t, "default") && !isPunct(t, "}") {
		return false // a switch body is case clauses
	}
	if c.inKind(fObject) || c.inKind(fClass) || c.state == sMethodEnd {
		if handled, ok := c.member(t); handled {
			return ok
		}
	}
	switch c.state {
	case sMember:
		switch {
		case t.kind == jsIdent && (t.text[0] != '#' || c.privateRef(t.text)):
			c.set(sOperator, false, false)
			return true
		case (isPunct(t, "(") || isPunct(t, "[")) && c.prevIs(jsPunct, "?."):
			c.state = sOperator // a?.(…), a?.[…]
		default:
			return false
		}
	case sHeader:
		return c.header(t)
	case sBinding:
		return c.bindingStep(t)
	case sFunction:
		return c.functionHead(t)
	case sClassName, sClassHeritage:
		return c.classHead(t)
	case sKey, sAfterKey, sMethodEnd:
		return false // keys are read only inside objects and classes
	}
	if c.binding && (c.state == sOperator || c.state == sAfterBlock) && !t.nl && !c.afterBinding(t) {
		return false
	}
	switch t.kind {
	case jsIdent:
		return c.ident(t)
	case jsPunct:
		return c.punct(t)
	case jsTmplHead:
		if !c.operand(t) {
			return false
		}
		return c.push(jsFrame{kind: fTemplate}, sOperand)
	case jsTmplMid, jsTmplTail:
		if !c.inKind(fTemplate) || c.state != sOperator && c.state != sAfterBlock || c.top().ternaries > 0 {
			return false
		}
		if t.kind == jsTmplMid {
			c.set(sOperand, false, false)
			return true
		}
		c.frames = c.frames[:len(c.frames)-1]
		c.set(sOperator, false, false)
		return true
	case jsNumber:
		return validNumber(t.text) && c.operand(t)
	}
	return c.operand(t) // strings, templates, regular expressions
}

// header reads the ( after if/for/while/switch/catch/with (for may take
// await first).
func (c *jsChecker) header(t jsToken) bool {
	if isWord(t, "await") && c.prevIs(jsIdent, "for") {
		c.effect = true
		return true
	}
	if !isPunct(t, "(") {
		return false
	}
	kw := c.prev().text
	if kw == "while" && c.doWhile {
		kw, c.doWhile = "do", false
	}
	switch kw {
	case "await", "for":
		return c.push(jsFrame{kind: fFor}, sOperand) && c.stmt()
	case "catch":
		return c.push(jsFrame{kind: fControl, keyword: kw, want: 1}, sBinding)
	}
	return c.push(jsFrame{kind: fControl, keyword: kw}, sOperand)
}

// stmt marks the state as a statement's start (a for header's init).
func (c *jsChecker) stmt() bool {
	c.stmtStart = true
	return true
}
