package shebang

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"hpatch-router/jsonline"
)

// Param is one exec_command argument of the request's declaration: its
// name and the type the declaration gives it, which a #!params value must
// have (Options.Params).
type Param struct {
	Name string
	Type ParamType
}

// ParamType is the JSON a declared argument type admits, as far as the
// router can tell from the declaration: the alternatives of a union, each
// a JSON kind (string, number, boolean, null, array, object), a string
// literal, or an array of a known element type. The zero ParamType is a
// type the router cannot read (a named type, a function, any): it admits
// every value, and Codex has the last word.
//
// A number is a whole number from 0 to 2^53-1. Every number Codex declares
// for exec_command (max_output_tokens, yield_time_ms) is an unsigned
// integer on its side: Codex 0.169.0 answers 1500.5 with "invalid type:
// floating point `1500.5`, expected u64" and -5 with "invalid value:
// integer `-5`, expected u64". The carrier is JavaScript, so 1e3 arrives
// as 1000, and beyond 2^53-1 a JavaScript number is no longer exact.
type ParamType struct {
	alts []typeAlt
}

type jsonKind uint8

const (
	kindString jsonKind = iota + 1
	kindNumber
	kindBool
	kindNull
	kindArray
	kindObject
)

// typeAlt is one alternative of a union: a kind, a string literal (kind
// string, literal set) or an array of elem (nil: any elements).
type typeAlt struct {
	kind    jsonKind
	literal string
	isLit   bool
	elem    *ParamType
}

// Known reports whether t was read from the declaration.
func (t ParamType) Known() bool { return len(t.alts) > 0 }

// maxTypeDepth bounds the nesting ParseParamType follows
// (Array<Array<…>>); deeper types are unknown.
const maxTypeDepth = 8

// ParseParamType reads a TypeScript type as the exec_command declaration
// writes it: string, number, boolean, null, string literals, true/false,
// numeric literals, Array<T> and T[], object literals and Record<…>, and
// unions of those (undefined in a union only says the field may be left
// out). Anything else gives the zero (unknown) type.
func ParseParamType(text string) ParamType {
	return parseTypeDepth(strings.TrimSpace(text), 0)
}

func parseTypeDepth(text string, depth int) ParamType {
	if depth > maxTypeDepth || text == "" {
		return ParamType{}
	}
	var t ParamType
	for _, member := range splitUnion(text) {
		m := strings.TrimSpace(member)
		if len(m) > 1 && m[0] == '(' && closesAt(m, 0) == len(m)-1 {
			inner := parseTypeDepth(strings.TrimSpace(m[1:len(m)-1]), depth+1)
			if !inner.Known() {
				return ParamType{}
			}
			t.alts = append(t.alts, inner.alts...)
			continue
		}
		if m == "undefined" {
			continue
		}
		alt, ok := parseAlt(m, depth)
		if !ok {
			return ParamType{}
		}
		t.alts = append(t.alts, alt)
	}
	return t
}

func parseAlt(m string, depth int) (typeAlt, bool) {
	switch m {
	case "string":
		return typeAlt{kind: kindString}, true
	case "number":
		return typeAlt{kind: kindNumber}, true
	case "boolean", "true", "false":
		return typeAlt{kind: kindBool}, true
	case "null":
		return typeAlt{kind: kindNull}, true
	case "object":
		return typeAlt{kind: kindObject}, true
	}
	switch {
	case len(m) >= 2 && (m[0] == '"' || m[0] == '\'') && closingQuote(m, 0) == len(m)-1:
		lit, ok := stringLiteral(m)
		return typeAlt{kind: kindString, literal: lit, isLit: true}, ok
	case strings.HasPrefix(m, "Array<") && strings.HasSuffix(m, ">") && closesAt(m, len("Array")) == len(m)-1:
		return arrayOf(m[len("Array<"):len(m)-1], depth)
	case strings.HasSuffix(m, "[]"):
		return arrayOf(m[:len(m)-2], depth)
	case strings.HasPrefix(m, "Record<") && strings.HasSuffix(m, ">"),
		strings.HasPrefix(m, "{") && strings.HasSuffix(m, "}") && closesAt(m, 0) == len(m)-1:
		return typeAlt{kind: kindObject}, true
	}
	if _, err := strconv.ParseFloat(m, 64); err == nil {
		return typeAlt{kind: kindNumber}, true
	}
	return typeAlt{}, false
}

// arrayOf is an array alternative; an element type the router cannot read
// admits any elements.
func arrayOf(elem string, depth int) (typeAlt, bool) {
	e := parseTypeDepth(strings.TrimSpace(elem), depth+1)
	if !e.Known() {
		return typeAlt{kind: kindArray}, true
	}
	return typeAlt{kind: kindArray, elem: &e}, true
}

// stringLiteral decodes a quoted TypeScript string literal.
func stringLiteral(m string) (string, bool) {
	if m[0] == '\'' {
		m = `"` + strings.ReplaceAll(strings.ReplaceAll(m[1:len(m)-1], `\'`, `'`), `"`, `\"`) + `"`
	}
	var s string
	return s, json.Unmarshal([]byte(m), &s) == nil
}

// splitUnion splits text at the `|` separators outside brackets and
// strings.
func splitUnion(text string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"' || c == '\'' || c == '`':
			e := closingQuote(text, i)
			if e < 0 {
				return []string{text}
			}
			i = e
		case c == '<' || c == '(' || c == '[' || c == '{':
			depth++
		case c == '>' && i > 0 && text[i-1] == '=':
		case c == '>' || c == ')' || c == ']' || c == '}':
			depth--
		case c == '|' && depth == 0:
			out = append(out, text[start:i])
			start = i + 1
		}
	}
	return append(out, text[start:])
}

// closesAt returns the index of the bracket closing the one at s[open]
// (the first bracket at or after open), or -1.
func closesAt(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\'' || c == '`':
			e := closingQuote(s, i)
			if e < 0 {
				return -1
			}
			i = e
		case c == '<' || c == '(' || c == '[' || c == '{':
			depth++
		case c == '>' && i > 0 && s[i-1] == '=':
		case c == '>' || c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// Admits reports whether the JSON value raw (valid, compact or not) has
// type t. An unknown type admits everything.
func (t ParamType) Admits(raw []byte) bool {
	if !t.Known() {
		return true
	}
	raw = bytes.TrimSpace(raw)
	for _, a := range t.alts {
		if a.admits(raw) {
			return true
		}
	}
	return false
}

func (a typeAlt) admits(raw []byte) bool {
	if kindOf(raw) != a.kind {
		return false
	}
	switch {
	case a.kind == kindNumber:
		return wholeNumber(raw)
	case a.isLit:
		var s string
		return json.Unmarshal(raw, &s) == nil && s == a.literal
	case a.kind == kindArray && a.elem != nil:
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			return false
		}
		for _, e := range elems {
			if !a.elem.Admits(e) {
				return false
			}
		}
	}
	return true
}

// maxWholeNumber is the largest whole number a JavaScript number holds
// exactly (Number.MAX_SAFE_INTEGER).
const maxWholeNumber = 1<<53 - 1

// wholeNumber reports whether the JSON number raw is a whole number from 0
// to maxWholeNumber, however it is written (1000, 1e3, 1000.0, -0).
func wholeNumber(raw []byte) bool {
	f, err := strconv.ParseFloat(string(raw), 64)
	return err == nil && f >= 0 && f <= maxWholeNumber && f == math.Trunc(f)
}

// kindOf is the JSON kind of a valid value by its first byte.
func kindOf(raw []byte) jsonKind {
	if len(raw) == 0 {
		return 0
	}
	switch raw[0] {
	case '"':
		return kindString
	case 't', 'f':
		return kindBool
	case 'n':
		return kindNull
	case '[':
		return kindArray
	case '{':
		return kindObject
	}
	return kindNumber
}

// Expect says what t admits, for a diagnostic: "a boolean", "one of
// "use_default", "require_escalated"", "an array of strings", joined with
// "or".
func (t ParamType) Expect() string {
	var lits []string
	var parts []string
	for _, a := range t.alts {
		if a.isLit {
			lits = append(lits, jsonline.String(a.literal))
			continue
		}
		parts = append(parts, a.noun(false))
	}
	switch len(lits) {
	case 0:
	case 1:
		parts = append(parts, "the string "+lits[0])
	default:
		parts = append(parts, "one of "+strings.Join(lits, ", "))
	}
	return strings.Join(parts, " or ")
}

// noun names one alternative with its article ("a boolean"), or in the
// plural for an array's elements ("booleans").
func (a typeAlt) noun(plural bool) string {
	var one, many string
	switch a.kind {
	case kindString:
		one, many = "a string", "strings"
		if a.isLit {
			one, many = "the string "+jsonline.String(a.literal), "the string "+jsonline.String(a.literal)
		}
	case kindNumber:
		one, many = "a whole number of 0 or more", "whole numbers of 0 or more"
	case kindBool:
		one, many = "a boolean", "booleans"
	case kindNull:
		one, many = "null", "nulls"
	case kindObject:
		one, many = "an object", "objects"
	case kindArray:
		one, many = "an array", "arrays"
		if a.elem != nil {
			one, many = "an array of "+a.elem.plural(), "arrays of "+a.elem.plural()
		}
	}
	if plural {
		return many
	}
	return one
}

// plural names the elements of an array of t ("strings", "strings or
// numbers").
func (t ParamType) plural() string {
	parts := make([]string, len(t.alts))
	for i, a := range t.alts {
		parts[i] = a.noun(true)
	}
	return strings.Join(parts, " or ")
}

// describeValue names a #!params value for a diagnostic, quoting a short
// string or number and only the kind of anything else.
func describeValue(raw []byte) string {
	const quoteMax = 40
	switch kindOf(raw) {
	case kindString:
		if len(raw) <= quoteMax {
			return "the string " + string(raw)
		}
		return "a string"
	case kindNumber:
		if len(raw) <= quoteMax {
			return "the number " + string(raw)
		}
		return "a number"
	case kindBool, kindNull:
		return string(raw)
	case kindArray:
		return "an array"
	}
	return "an object"
}

// bulletType reads the type of a bulleted parameter
// ("- `workdir` (string, optional): …"): the first word in its
// parentheses, when it is a JSON kind; anything else is unknown.
func bulletType(line string) ParamType {
	open := strings.IndexByte(line, '(')
	if open < 0 {
		return ParamType{}
	}
	rest := line[open+1:]
	end := strings.IndexAny(rest, ",)")
	if end < 0 {
		return ParamType{}
	}
	var k jsonKind
	switch strings.ToLower(strings.TrimSpace(rest[:end])) {
	case "bool", "boolean":
		k = kindBool
	case "int", "integer", "number":
		k = kindNumber
	case "string":
		k = kindString
	case "array":
		k = kindArray
	case "object":
		k = kindObject
	default:
		return ParamType{}
	}
	return ParamType{alts: []typeAlt{{kind: k}}}
}
