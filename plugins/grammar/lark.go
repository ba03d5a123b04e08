package grammar

import (
	"fmt"
	"slices"
	"strings"
)

// CheckLark checks a Lark grammar as far as it can be checked without the
// API: every referenced rule and terminal is defined (by a definition,
// %import or %declare) and none twice, a `start` rule exists, groups (),
// [] and {} balance, strings close and regex terminals compile as the API
// runs them (CheckRegex, with their flags). It returns every problem, in
// line order; none means the grammar passed.
func CheckLark(src string) []Problem {
	toks, probs := lexLark(src)
	c := &larkCheck{defs: map[string]int{}, probs: probs}
	for _, st := range statements(toks) {
		c.statement(st)
	}
	for _, r := range c.refs {
		if _, ok := c.defs[r.name]; !ok && !slices.Contains(r.scope, r.name) {
			c.add(r.line, fmt.Sprintf("%s %s is used but never defined; define it (%s: …) or fix the name", kindOf(r.name), r.name, r.name))
		}
	}
	if _, ok := c.defs["start"]; !ok {
		c.add(0, "the grammar has no start rule, where the API begins; add one, e.g. start: …")
	}
	// In line order; problems of the whole grammar (line 0) last.
	slices.SortStableFunc(c.probs, func(a, b Problem) int { return order(a.Line) - order(b.Line) })
	return c.probs
}

type larkCheck struct {
	defs  map[string]int // defined names, by their line
	refs  []larkRef
	probs []Problem
}

type larkRef struct {
	name  string
	line  int
	scope []string // the template parameters of the rule it is in
}

func (c *larkCheck) add(line int, msg string) { c.probs = append(c.probs, Problem{line, msg}) }

// statements splits tokens into definitions and directives: a statement
// ends at a line break unless the next line starts with | (another
// alternative), as in Lark, where a group cannot span lines otherwise.
func statements(toks []token) [][]token {
	var out [][]token
	var cur []token
	for i, t := range toks {
		switch {
		case t.kind == tokNewline:
			continue
		case len(cur) > 0 && i > 0 && toks[i-1].kind == tokNewline && !(t.kind == tokPunct && t.text == "|"):
			out = append(out, cur)
			cur = nil
		}
		cur = append(cur, t)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func (c *larkCheck) statement(st []token) {
	if st[0].kind == tokPunct && st[0].text == "%" {
		c.directive(st)
		return
	}
	c.definition(st, false)
}

// definition reads `[?!]name[{params}][.priority]: expansions`.
func (c *larkCheck) definition(st []token, override bool) {
	line := st[0].line
	i := 0
	if st[i].kind == tokPunct && (st[i].text == "?" || st[i].text == "!") {
		i++
	}
	if i >= len(st) || st[i].kind != tokName {
		c.add(line, "this line starts no definition; write NAME: … (rules lowercase, terminals UPPERCASE) or a %directive")
		return
	}
	name := st[i].text
	i++
	var params []string
	if i < len(st) && st[i].text == "{" {
		for i++; i < len(st) && st[i].text != "}"; i++ {
			if st[i].kind == tokName {
				params = append(params, st[i].text)
			}
		}
		i++
	}
	if i+1 < len(st) && st[i].text == "." && st[i+1].kind == tokNumber {
		i += 2
	} else if i+2 < len(st) && st[i].text == "." && st[i+1].text == "-" && st[i+2].kind == tokNumber {
		i += 3
	}
	if i >= len(st) || st[i].text != ":" {
		c.add(line, fmt.Sprintf("definition of %s has no ':'; write %s: …", name, name))
		return
	}
	c.define(name, line, override)
	c.body(st[i+1:], params)
}

func (c *larkCheck) define(name string, line int, override bool) {
	if first, ok := c.defs[name]; ok && !override {
		c.add(line, fmt.Sprintf("%s %s is defined again (first on line %d); keep one definition or join them with |", kindOf(name), name, first))
		return
	}
	c.defs[name] = line
}

// body checks the expansions of a definition or %ignore.
func (c *larkCheck) body(toks []token, scope []string) {
	var open []token
	for k, t := range toks {
		switch t.kind {
		case tokName:
			if k > 0 && toks[k-1].text == "->" {
				continue // an alias names the tree node, not a symbol
			}
			c.refs = append(c.refs, larkRef{t.text, t.line, scope})
		case tokRegex:
			if err := checkLarkRegex(t.text, t.flag); err != nil {
				c.add(t.line, fmt.Sprintf("regex /%s/ %v", cut(t.text), err))
			}
		case tokPunct:
			switch t.text {
			case "(", "[", "{":
				open = append(open, t)
			case ")", "]", "}":
				want := map[string]string{")": "(", "]": "[", "}": "{"}[t.text]
				if len(open) == 0 || open[len(open)-1].text != want {
					c.add(t.line, fmt.Sprintf("%q closes no open %q; remove it or open the group", t.text, want))
					continue
				}
				open = open[:len(open)-1]
			case ":", "%":
				c.add(t.line, fmt.Sprintf("unexpected %q inside a definition; start each definition on its own line", t.text))
			}
		}
	}
	for _, o := range open {
		c.add(o.line, fmt.Sprintf("%q is never closed; close the group", o.text))
	}
}

// directive checks %import, %ignore, %declare, %override and %extend.
func (c *larkCheck) directive(st []token) {
	line := st[0].line
	if len(st) < 2 || st[1].kind != tokName {
		c.add(line, "a % line names no directive; write %import, %ignore or %declare")
		return
	}
	rest := st[2:]
	switch st[1].text {
	case "import":
		c.imports(rest, line)
	case "ignore":
		if len(rest) == 0 {
			c.add(line, "%ignore names nothing; write e.g. %ignore WS")
		}
		c.body(rest, nil)
	case "declare":
		for _, t := range rest {
			if t.kind == tokName {
				c.define(t.text, t.line, false)
			}
		}
	case "override", "extend":
		if len(rest) == 0 {
			c.add(line, "%"+st[1].text+" has no definition; write %"+st[1].text+" NAME: …")
			return
		}
		c.definition(rest, true)
	default:
		c.add(line, fmt.Sprintf("unknown directive %%%s; use %%import, %%ignore, %%declare, %%override or %%extend", st[1].text))
	}
}

// imports defines what `%import a.b.NAME [-> ALIAS]` or
// `%import a.b (N1, N2)` brings in.
func (c *larkCheck) imports(rest []token, line int) {
	var last string
	for k := 0; k < len(rest); k++ {
		t := rest[k]
		switch {
		case t.text == "->" && k+1 < len(rest) && rest[k+1].kind == tokName:
			c.define(rest[k+1].text, line, false)
			return
		case t.text == "(":
			for k++; k < len(rest) && rest[k].text != ")"; k++ {
				if rest[k].kind == tokName {
					c.define(rest[k].text, line, false)
				}
			}
			return
		case t.kind == tokName:
			last = t.text
		}
	}
	if last == "" {
		c.add(line, "%import names nothing; write e.g. %import common.WS")
		return
	}
	c.define(last, line, false)
}

// checkLarkRegex compiles a regex terminal with its flags: i, m and s
// mean what they mean in Go; l and u change nothing the API does; x
// (verbose) has no RE2 form.
func checkLarkRegex(re, flags string) error {
	var g strings.Builder
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's':
			g.WriteRune(f)
		case 'x':
			return fmt.Errorf("uses the verbose flag x, which the API's regex engine does not read; remove the flag and the layout whitespace")
		}
	}
	if g.Len() > 0 {
		re = "(?" + g.String() + ")" + re
	}
	// A slash inside a Lark regex is written \/; RE2 reads \/ as /.
	return CheckRegex(re)
}

// kindOf says whether name is a rule or a terminal, as Lark tells them
// apart (terminals are uppercase).
func kindOf(name string) string {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' {
			return "rule"
		}
		if c >= 'A' && c <= 'Z' {
			return "terminal"
		}
	}
	return "rule"
}

func cut(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func order(line int) int {
	if line == 0 {
		return int(^uint(0) >> 1)
	}
	return line
}
