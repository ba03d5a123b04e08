package shebang

import (
	"slices"
	"strings"
)

// ParamsShape is a request's exec_command argument shape, minus cmd: the
// router appends Fields to the shell description under #!params, and
// Translate accepts only Params as #!params keys, each with a value of its
// declared type (Options.Params). It
// is taken from the request because Codex versions and configurations
// differ in which fields exec_command accepts; the model must see the ones
// this Codex will honour.
type ParamsShape struct {
	// Fields holds the field declarations (TypeScript, with their comment
	// lines) or the parameter bullets, each line ending in "\n"; empty when
	// nothing but cmd was declared.
	Fields string
	// Params are the fields in declaration order, each with its type.
	Params []Param
	// TypeScript is true for declaration fields, false for bullets.
	TypeScript bool
}

// ParseParamsShape is the one parser of the #!params shape. It reads the
// exec_command section of a Code Mode exec description (or any text that
// holds it): first the app/CLI TypeScript declaration
// `exec_command(args: { … })` — fields named bare, with `?`, or quoted —
// else a Markdown bullet list of parameters that includes cmd, so a
// `Parameters:` line or prose bullets never count. Anything else gives the
// zero shape: the shell description stays the base one and any #!params
// key is accepted.
func ParseParamsShape(section string) ParamsShape {
	if s, ok := tsParams(section); ok {
		return s
	}
	if s, ok := bulletParams(section); ok {
		return s
	}
	return ParamsShape{}
}

// Names are the names of s.Params in declaration order.
func (s ParamsShape) Names() []string {
	if s.Params == nil {
		return nil
	}
	names := make([]string, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
	}
	return names
}

// declares reports whether params declares name.
func declares(params []Param, name string) bool {
	return slices.ContainsFunc(params, func(p Param) bool { return p.Name == name })
}

// tsParams extracts the fields of the argument object literal type.
func tsParams(section string) (ParamsShape, bool) {
	open, ok := argsObjectStart(section)
	if !ok {
		return ParamsShape{}, false
	}
	segs, ok := splitFields(section, open)
	if !ok {
		return ParamsShape{}, false
	}
	shape := ParamsShape{TypeScript: true}
	var b strings.Builder
	for _, seg := range segs {
		name, typ := fieldDecl(seg)
		if name == "" || name == "cmd" || declares(shape.Params, name) {
			continue // a repeated field keeps its first declaration
		}
		shape.Params = append(shape.Params, Param{Name: name, Type: ParseParamType(typ)})
		seg = strings.TrimLeft(seg, "\r\n")
		if strings.Contains(seg, "\n") {
			// Line-structured declaration: keep it verbatim.
			b.WriteString(seg)
			if !strings.HasSuffix(seg, "\n") {
				b.WriteByte('\n')
			}
			continue
		}
		// A one-line declaration (`{ a: T; b: U }`): one field per line.
		line := strings.TrimSuffix(strings.TrimSpace(seg), ",")
		if !strings.HasSuffix(line, ";") {
			line += ";"
		}
		b.WriteString("  " + line + "\n")
	}
	shape.Fields = b.String()
	return shape, true
}

// argsObjectStart returns the index of the `{` that opens the argument
// type in `exec_command(args: {`, tolerating whitespace and another
// parameter name.
func argsObjectStart(s string) (int, bool) {
	const fn = "exec_command("
	i := strings.Index(s, fn)
	if i < 0 {
		return 0, false
	}
	j := skipSpace(s, i+len(fn))
	for j < len(s) && isIdentByte(s[j]) {
		j++
	}
	j = skipSpace(s, j)
	if j < len(s) && s[j] == '?' {
		j++
	}
	if j >= len(s) || s[j] != ':' {
		return 0, false
	}
	j = skipSpace(s, j+1)
	if j >= len(s) || s[j] != '{' {
		return 0, false
	}
	return j, true
}

// splitFields splits the object type opened at s[open] into field
// segments: each runs through its `;` or `,` terminator at nesting depth
// one, plus the rest of that line when it holds only a comment. Comments
// before a field belong to it. Strings and comments never count as
// brackets; `=>` is not a closing angle bracket.
func splitFields(s string, open int) ([]string, bool) {
	depth := 0
	segStart := open + 1
	var segs []string
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			nl := strings.IndexByte(s[i:], '\n')
			if nl < 0 {
				return nil, false
			}
			i += nl - 1
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			e := strings.Index(s[i+2:], "*/")
			if e < 0 {
				return nil, false
			}
			i += e + 3
		case c == '"' || c == '\'' || c == '`':
			e := closingQuote(s, i)
			if e < 0 {
				return nil, false
			}
			i = e
		case c == '{' || c == '[' || c == '(' || c == '<':
			depth++
		case c == '>' && i > 0 && s[i-1] == '=':
		case c == '}' || c == ']' || c == ')' || c == '>':
			depth--
			if depth == 0 {
				if strings.TrimSpace(s[segStart:i]) != "" {
					segs = append(segs, s[segStart:i])
				}
				return segs, true
			}
		case (c == ';' || c == ',') && depth == 1:
			end := lineRestEnd(s, i+1)
			segs = append(segs, s[segStart:end])
			segStart = end
			i = end - 1
		}
	}
	return nil, false
}

// lineRestEnd returns where a field segment ends after its terminator at
// i: past trailing blanks, a same-line // comment and the newline, so the
// comment stays with its field; otherwise right at i.
func lineRestEnd(s string, i int) int {
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if strings.HasPrefix(s[j:], "//") {
		if nl := strings.IndexByte(s[j:], '\n'); nl >= 0 {
			return j + nl + 1
		}
		return i
	}
	if j < len(s) && s[j] == '\r' {
		j++
	}
	if j < len(s) && s[j] == '\n' {
		return j + 1
	}
	return i
}

// closingQuote returns the index of the quote closing the string that
// starts at s[i], or -1.
func closingQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j
		case '\n':
			if q != '`' {
				return -1
			}
		}
	}
	return -1
}

// fieldDecl reads a field segment after its leading comments: the
// property name (`name`, `name?`, or a quoted name) and the text of its
// type, from the colon to the field's terminator ("" when there is none).
func fieldDecl(seg string) (name, typ string) {
	i := 0
	for i < len(seg) {
		i = skipSpace(seg, i)
		switch {
		case strings.HasPrefix(seg[i:], "//"):
			nl := strings.IndexByte(seg[i:], '\n')
			if nl < 0 {
				return "", ""
			}
			i += nl + 1
		case strings.HasPrefix(seg[i:], "/*"):
			e := strings.Index(seg[i+2:], "*/")
			if e < 0 {
				return "", ""
			}
			i += e + 4
		case i < len(seg) && (seg[i] == '"' || seg[i] == '\''):
			e := closingQuote(seg, i)
			if e < 0 {
				return "", ""
			}
			return seg[i+1 : e], fieldType(seg, e+1)
		default:
			j := i
			for j < len(seg) && isIdentByte(seg[j]) {
				j++
			}
			return seg[i:j], fieldType(seg, j)
		}
	}
	return "", ""
}

// fieldType is the type text of a field whose name ends at i: after an
// optional `?` and the colon, up to the `;` or `,` that ends the field
// outside brackets, strings and comments (or the segment's end).
func fieldType(seg string, i int) string {
	i = skipSpace(seg, i)
	if i < len(seg) && seg[i] == '?' {
		i = skipSpace(seg, i+1)
	}
	if i >= len(seg) || seg[i] != ':' {
		return ""
	}
	start, depth := i+1, 0
	for j := start; j < len(seg); j++ {
		switch c := seg[j]; {
		case c == '/' && j+1 < len(seg) && (seg[j+1] == '/' || seg[j+1] == '*'):
			return strings.TrimSpace(seg[start:j])
		case c == '"' || c == '\'' || c == '`':
			e := closingQuote(seg, j)
			if e < 0 {
				return ""
			}
			j = e
		case c == '{' || c == '[' || c == '(' || c == '<':
			depth++
		case c == '>' && j > 0 && seg[j-1] == '=':
		case c == '}' || c == ']' || c == ')' || c == '>':
			depth--
		case (c == ';' || c == ',') && depth == 0:
			return strings.TrimSpace(seg[start:j])
		}
	}
	return strings.TrimSpace(seg[start:])
}

// bulletParams reads a parameter list written as Markdown bullets
// ("- `workdir` (string, optional): …"). It only accepts a list that
// names cmd, which is what marks it as exec_command's parameters rather
// than prose. Continuation lines indented under a bullet stay with it.
func bulletParams(section string) (ParamsShape, bool) {
	shape := ParamsShape{}
	var b strings.Builder
	sawCmd, keep, indent := false, false, -1
	for _, line := range strings.SplitAfter(section, "\n") {
		name, ind := bulletName(line)
		switch {
		case name != "":
			indent = ind
			keep = name != "cmd" && !declares(shape.Params, name)
			if name == "cmd" {
				sawCmd = true
			} else if keep {
				shape.Params = append(shape.Params, Param{Name: name, Type: bulletType(line)})
			}
		case indent >= 0 && strings.TrimSpace(line) != "" && leadingSpace(line) > indent:
			// continuation of the current bullet
		default:
			indent, keep = -1, false
		}
		if keep {
			b.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	shape.Fields = b.String()
	if !sawCmd {
		return ParamsShape{}, false
	}
	return shape, true
}

// bulletName recognizes "- name:", "- name (…", "- `name` …" and "- name?:"
// bullets and returns the name and the bullet's indentation.
func bulletName(line string) (string, int) {
	ind := leadingSpace(line)
	t := line[ind:]
	if !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") {
		return "", 0
	}
	t = t[2:]
	ticked := strings.HasPrefix(t, "`")
	if ticked {
		t = t[1:]
	}
	j := 0
	for j < len(t) && isIdentByte(t[j]) {
		j++
	}
	if j == 0 {
		return "", 0
	}
	name, rest := t[:j], t[j:]
	if ticked {
		if !strings.HasPrefix(rest, "`") {
			return "", 0
		}
		return name, ind
	}
	rest = strings.TrimPrefix(rest, "?")
	if strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, " (") {
		return name, ind
	}
	return "", 0
}

func leadingSpace(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
