package shebang

import "slices"

// Bindings, function and class heads, and object and class members for the
// statement automaton (jscheck.go).

// bindingStep reads a bound name, a pattern, a rest element or a hole.
func (c *jsChecker) bindingStep(t jsToken) bool {
	if f := c.top(); f != nil && f.kind == fParams && !c.prevIs(jsPunct, "...") && !isPunct(t, ")") {
		f.count++
	}
	switch {
	case t.kind == jsIdent && !isReserved(t.text) && t.text[0] != '#':
		c.binding = true
		c.set(sOperator, false, false)
		return true
	case isPunct(t, "{"):
		return c.push(jsFrame{kind: fObject, pattern: true}, sKey)
	case isPunct(t, "["):
		return c.push(jsFrame{kind: fBracket, pattern: true}, sBinding)
	case isPunct(t, "..."):
		return !c.prevIs(jsPunct, "...") && (c.inKind(fParams) || c.inKind(fBracket) || c.inKind(fObject))
	case isPunct(t, ","):
		return c.inKind(fBracket) && !c.prevIs(jsPunct, "...") // a hole
	case isPunct(t, ")"), isPunct(t, "]"):
		return !c.prevIs(jsPunct, "...") && c.close(t)
	}
	return false
}

// afterBinding admits what may follow a bound name: a default or
// initializer, the next one, the end of the list or pattern, of/in in a
// for header, or the end of a declaration (a const needs its =).
func (c *jsChecker) afterBinding(t jsToken) bool {
	declLevel := c.declDepth == len(c.frames)+1
	switch {
	case isPunct(t, "="):
		c.binding, c.initializer = false, true
		return true
	case isWord(t, "of"), isWord(t, "in"):
		c.binding = false
		return declLevel && c.inKind(fFor)
	case isPunct(t, ")"), isPunct(t, "]"), isPunct(t, "}"):
		return !declLevel || !c.declConst
	case isPunct(t, ","):
		return !declLevel || !c.declConst
	case isPunct(t, ";"), t.nl:
		return declLevel && !c.declConst
	}
	return false
}

// functionHead reads what follows function: an optional *, an optional
// name, then the parameter list.
func (c *jsChecker) functionHead(t jsToken) bool {
	p := c.prev()
	switch {
	case isPunct(t, "*") && isWord(p, "function"):
		return true
	case t.kind == jsIdent && !isReserved(t.text) && t.text[0] != '#' && (isWord(p, "function") || isPunct(p, "*")):
		return true
	case isPunct(t, "("):
		return c.push(c.body, sBinding)
	}
	return false
}

// classHead reads what follows class: an optional name, an optional
// extends clause, then the body.
func (c *jsChecker) classHead(t jsToken) bool {
	switch {
	case isPunct(t, "{"):
		c.next = fBlock
		return c.push(jsFrame{kind: fClass, decl: c.body.decl}, sKey)
	case isWord(t, "extends"):
		c.next = fClass
		c.set(sOperand, false, false)
		return true
	case c.state == sClassName && t.kind == jsIdent && !isReserved(t.text) && t.text[0] != '#':
		c.state = sClassHeritage
		return true
	}
	return false
}

// member reads the keys of an object literal or pattern and the members
// of a class body. handled is false for tokens the ordinary rules read
// (a value, a default, a method body).
func (c *jsChecker) member(t jsToken) (handled, ok bool) {
	f := c.top()
	class, pattern := f.kind == fClass, f.pattern
	keyLike := t.kind == jsIdent || t.kind == jsString || t.kind == jsNumber || isPunct(t, "[") || isPunct(t, "*")
	next := func() (bool, bool) {
		if !class && !c.keyIdent && c.state == sAfterKey {
			return true, false // a shorthand is a name
		}
		c.set(sKey, false, false)
		return true, true
	}
	switch c.state {
	case sKey:
		return true, c.key(t, class, pattern, "")
	case sAfterKey:
		switch {
		case isPunct(t, "(") && !pattern:
			return true, c.push(jsFrame{kind: fParams, method: true, fn: 1 + b2u(c.keyAsync), want: c.keyAccessor}, sBinding)
		case c.keyMethod:
			return true, false // get x, async x, *x: a method
		case isPunct(t, ":") && !class:
			if pattern {
				c.set(sBinding, false, false)
			} else {
				c.set(sOperand, false, false)
			}
		case isPunct(t, "="):
			if !class && !(pattern && c.keyIdent) {
				return true, false
			}
			c.set(sOperand, false, false)
		case isPunct(t, ",") && !class, isPunct(t, ";") && class:
			return next()
		case isPunct(t, "}"):
			return true, (class || c.keyIdent) && c.close(t)
		case isPunct(t, "{") && class && c.prevIs(jsIdent, "static"):
			return true, c.push(jsFrame{kind: fBlock, fn: 1}, sOperand)
		case keyLike && c.keyModifier && !(t.nl && c.prevIs(jsIdent, "async")):
			c.state = sKey
			return true, c.key(t, class, pattern, c.prev().text)
		case keyLike && class && t.nl:
			c.state = sKey
			return true, c.key(t, class, pattern, "")
		default:
			return true, false
		}
		return true, true
	case sOperator, sAfterBlock, sMethodEnd:
		switch {
		case isPunct(t, ",") && !class, isPunct(t, ";") && class:
			if c.binding && !c.afterBinding(t) || f.ternaries > 0 || c.dangling() {
				return true, false
			}
			c.binding = false
			return next()
		case isPunct(t, "}"):
			return true, c.close(t)
		case class && (t.nl || c.state != sOperator) && keyLike:
			c.state = sKey
			return true, c.key(t, class, pattern, "")
		case c.state == sMethodEnd:
			return true, false
		}
	}
	return false, false
}

// key reads a member key (or what may stand in for one). after is the
// modifier that preceded it (get, set, async, static, *), or "".
func (c *jsChecker) key(t jsToken, class, pattern bool, after string) bool {
	c.keyMethod = after != "" && after != "static"
	c.keyAsync = after == "async" || after == "*" && c.keyAsync
	c.keyAccessor = -1
	switch after {
	case "get":
		c.keyAccessor = 0
	case "set":
		c.keyAccessor = 1
	}
	switch {
	case isPunct(t, "}") && after == "":
		return c.close(t)
	case isPunct(t, "...") && !class && after == "":
		if pattern {
			c.set(sBinding, false, false)
		} else {
			c.set(sOperand, false, false)
		}
	case isPunct(t, ";") && class && after == "":
	case isPunct(t, "*") && !pattern && (after == "" || after == "async" || after == "static"):
		c.keyModifier = true
	case isPunct(t, "["):
		return c.push(jsFrame{kind: fBracket, computed: true}, sOperand)
	case t.kind == jsIdent && t.text[0] == '#':
		if !class {
			return false
		}
		f := c.top()
		f.privDecl = append(f.privDecl, t.text)
		c.keyIdent, c.keyModifier = false, false
		c.set(sAfterKey, false, false)
	case t.kind == jsIdent, t.kind == jsString, t.kind == jsNumber && validNumber(t.text):
		c.keyIdent = t.kind == jsIdent && (!isReserved(t.text) || class) && after == ""
		c.keyModifier = t.kind == jsIdent && isModifier(t.text) && !pattern && after == "" ||
			after == "static" && t.kind == jsIdent && isModifier(t.text) && t.text != "static"
		c.set(sAfterKey, false, false)
	default:
		return false
	}
	return true
}

// privateRef records a use of a private name (#x) in the innermost class
// body, which checks it when it closes; outside a class it is an error.
func (c *jsChecker) privateRef(name string) bool {
	for i := len(c.frames) - 1; i >= 0; i-- {
		if c.frames[i].kind == fClass {
			c.frames[i].privRefs = append(c.frames[i].privRefs, name)
			return true
		}
	}
	return false
}

// closeClass checks a class body's private names when it closes: each
// one used is declared in it or passed to the enclosing class.
func (c *jsChecker) closeClass(f jsFrame) bool {
	for _, ref := range f.privRefs {
		if slices.Contains(f.privDecl, ref) {
			continue
		}
		if !c.privateRef(ref) {
			return false // Private field must be declared in an enclosing class
		}
	}
	return true
}

// isModifier: words that may precede a member's key.
func isModifier(w string) bool { return w == "async" || w == "get" || w == "set" || w == "static" }

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
