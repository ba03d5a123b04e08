package registry

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"hpatch-router/plugins/grammar"
	"hpatch-router/shebang"
)

// toolKeys are the keys a [[tool]] may hold, in the order they are named.
var toolKeys = []string{"name", "description", "run", "input", "cmd", "params", "max_input_bytes", "format"}

// validName is DESIGN §12's name rule, [A-Za-z_][A-Za-z0-9_-]{0,63}. It is a
// loop, not a package-level regexp, because the router binary is also the
// worker every shell call starts and must run no initialisation of ours.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, c := range []byte(s) {
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c != '-' && (c < '0' || c > '9')) {
			return false
		}
	}
	return true
}

// tool validates the i-th [[tool]] table; nil when it has a problem.
func (f *fileLoad) tool(i int, m map[string]any) *Tool {
	at := "tool." + strconv.Itoa(i)
	line := func(key string) int { return f.lines.lineOf(at + "." + key) }
	before := len(f.probs)
	t := &Tool{File: f.path, Line: f.lines.lineOf(at), Input: "script"}
	for _, k := range sortedKeys(m) {
		if !slices.Contains(toolKeys, k) {
			f.problem(line(k), "unknown key %q; a tool has %s", k, strings.Join(toolKeys, ", "))
		}
	}
	t.Name = f.str(m, "name", line, true)
	switch {
	case t.Name == "" && m["name"] == nil:
	case !validName(t.Name):
		f.problem(line("name"), "name %q is not a tool name; use letters, digits, _ and - (a letter or _ first, at most 64)", t.Name)
	case slices.Contains(reserved, t.Name):
		f.problem(line("name"), "name %q is reserved (%s); choose another", t.Name, strings.Join(reserved, ", "))
	}
	if t.Description = f.str(m, "description", line, true); t.Description == "" && m["description"] != nil {
		f.problem(line("description"), "description is empty; say what the tool does and what its input is, the model's only manual")
	}
	f.run(m, line, t)
	switch in := f.str(m, "input", line, false); in {
	case "", "script":
	case "stdin":
		t.Input, t.Spec.Stdin = "stdin", true
	default:
		f.problem(line("input"), "input %q is not \"script\" or \"stdin\"; choose one", in)
	}
	if t.Spec.Cmd = f.str(m, "cmd", line, false); m["cmd"] != nil {
		if err := shebang.CheckTemplate(t.Spec.Cmd); err != nil {
			f.problem(line("cmd"), "%s", err)
		}
	}
	f.params(m, line, t)
	f.maxInput(m, line, t)
	f.format(m, line, t)
	if len(f.probs) > before {
		return nil
	}
	t.render()
	return t
}

// str reads a string key; a required one that is missing, or a value of
// another type, is a problem.
func (f *fileLoad) str(m map[string]any, key string, line func(string) int, required bool) string {
	v, ok := m[key]
	if !ok {
		if required {
			f.problem(line(""), "the tool has no %s; add %s = \"…\"", key, key)
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		f.problem(line(key), "%s must be a string, not %s", key, typeName(v))
	}
	return s
}

func (f *fileLoad) run(m map[string]any, line func(string) int, t *Tool) {
	v, ok := m["run"]
	if !ok {
		f.problem(line(""), "the tool has no run; add the program and its arguments, e.g. run = [\"python3\"]")
		return
	}
	list, ok := v.([]any)
	var run []string
	for _, x := range list {
		s, isStr := x.(string)
		ok = ok && isStr
		run = append(run, s)
	}
	if !ok {
		f.problem(line("run"), "run must be an array of strings, e.g. run = [\"psql\", \"-X\", \"-f\"]")
		return
	}
	fields, err := shebang.CheckRun(run)
	if err != nil {
		f.problem(line("run"), "%s", err)
		return
	}
	t.Spec.Run = fields
}

func (f *fileLoad) params(m map[string]any, line func(string) int, t *Tool) {
	v, ok := m["params"]
	if !ok {
		return
	}
	if _, isTable := v.(map[string]any); !isTable {
		f.problem(line("params"), "params must be a table, e.g. params = { max_output_tokens = 20000 }")
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		f.problem(line("params"), "params cannot be written as JSON (%v); use strings, numbers, booleans, arrays and tables", err)
		return
	}
	if err := shebang.CheckParams(string(b)); err != nil {
		f.problem(line("params"), "%s", err)
		return
	}
	t.Spec.Params = string(b)
}

func (f *fileLoad) maxInput(m map[string]any, line func(string) int, t *Tool) {
	v, ok := m["max_input_bytes"]
	if !ok {
		return
	}
	n, isInt := v.(int64)
	switch {
	case !isInt:
		f.problem(line("max_input_bytes"), "max_input_bytes must be an integer, not %s", typeName(v))
	case n < 1 || n > shebang.MaxArgBytes:
		f.problem(line("max_input_bytes"), "max_input_bytes %d is outside 1…%d (the argv limit); choose a value in it or remove the key", n, shebang.MaxArgBytes)
	default:
		t.Spec.MaxInputBytes = int(n)
	}
}

var formatKeys = []string{"type", "syntax", "definition", "definition_file"}

func (f *fileLoad) format(m map[string]any, line func(string) int, t *Tool) {
	t.Format = Format{Type: "text"}
	v, ok := m["format"]
	if !ok {
		return
	}
	fm, ok := v.(map[string]any)
	if !ok {
		f.problem(line("format"), "format must be a table, e.g. format = { type = \"grammar\", syntax = \"lark\", definition_file = \"x.lark\" }")
		return
	}
	at := func(k string) int { return line("format." + k) }
	for _, k := range sortedKeys(fm) {
		if !slices.Contains(formatKeys, k) {
			f.problem(at(k), "unknown format key %q; a format has %s", k, strings.Join(formatKeys, ", "))
		}
	}
	typ := f.str(fm, "type", at, false)
	syntax := f.str(fm, "syntax", at, false)
	def, hasDef := fm["definition"]
	file, hasFile := fm["definition_file"]
	switch typ {
	case "", "text":
		if syntax != "" || hasDef || hasFile {
			f.problem(at("type"), "a text format takes no syntax or definition; write type = \"grammar\" to constrain the input")
		}
		return
	case "grammar":
	default:
		f.problem(at("type"), "format type %q is not \"text\" or \"grammar\"; choose one", typ)
		return
	}
	if syntax != "lark" && syntax != "regex" {
		f.problem(at("syntax"), "format syntax %q is not \"lark\" or \"regex\"; choose one", syntax)
		return
	}
	switch {
	case hasDef == hasFile:
		f.problem(at("type"), "a grammar needs exactly one of definition and definition_file; keep one")
	case hasDef:
		s, _ := def.(string)
		if _, isStr := def.(string); !isStr || s == "" {
			f.problem(at("definition"), "definition must be a non-empty string")
			return
		}
		t.Format = Format{"grammar", syntax, s}
		f.checkGrammar(t.Format, f.path, at("definition"), "definition line ")
	default:
		name, _ := file.(string)
		if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
			f.problem(at("definition_file"), "definition_file %q must name a file next to the tool file, e.g. \"sql.lark\"", name)
			return
		}
		data, err := f.read(name, "grammar file", MaxDefinitionBytes)
		if err != nil {
			f.problem(at("definition_file"), "%s", err)
			return
		}
		t.Format = Format{"grammar", syntax, string(data)}
		f.checkGrammar(t.Format, filepath.Join(f.dir, name), 0, "")
	}
	if len(t.Format.Definition) > MaxDefinitionBytes {
		f.problem(at("definition"), "the grammar is over %d bytes; make it smaller", MaxDefinitionBytes)
	}
}

// checkGrammar reports each grammar problem: in a definition file at its
// own file and line; inline at the definition key's line, naming the
// grammar's line.
func (f *fileLoad) checkGrammar(g Format, file string, keyLine int, prefix string) {
	add := func(line int, msg string) {
		switch {
		case keyLine > 0 && line > 0:
			f.probs = append(f.probs, Problem{File: file, Line: keyLine, Msg: prefix + strconv.Itoa(line) + ": " + msg})
		case keyLine > 0:
			f.probs = append(f.probs, Problem{File: file, Line: keyLine, Msg: msg})
		default:
			f.probs = append(f.probs, Problem{File: file, Line: line, Msg: msg})
		}
	}
	if g.Syntax == "regex" {
		if err := grammar.CheckRegex(g.Definition); err != nil {
			add(0, "the regex "+err.Error())
		}
		return
	}
	for _, p := range grammar.CheckLark(g.Definition) {
		add(p.Line, p.Msg)
	}
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}
