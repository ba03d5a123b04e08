package registry

import (
	"strconv"

	"hpatch-router/jsonline"
	"hpatch-router/plugins"
	"hpatch-router/shebang"
)

// Built-in tool names: the router's own, injected beside every owner.
const (
	Shell  = "shell"
	Hpatch = "hpatch"
)

// IsBuiltin reports a built-in tool name (a request that defines one in
// the owner's container cannot be rewritten: DESIGN §3).
func IsBuiltin(name string) bool { return name == Shell || name == Hpatch }

// reserved are the names no declared tool may take: the built-ins, the
// owner and Codex's own edit tool.
var reserved = []string{Shell, Hpatch, "exec", "apply_patch"}

// Builtins are the built-in tools as the router splices them.
func Builtins() plugins.Tools { return plugins.CompactTools() }

// Tool is one declared tool, validated.
type Tool struct {
	Name        string
	Description string
	// File is the tool file's path as loaded, Line the line of its
	// [[tool]] header.
	File string
	Line int
	// Input is "script" or "stdin".
	Input string
	// Spec is what every call applies (shebang.TranslateTool).
	Spec   shebang.ToolSpec
	Format Format
	// JSON is the custom tool object as the request carries it, compact.
	JSON []byte
}

// Format is how the API constrains the model's input: Type "text", or
// "grammar" with Syntax "lark" or "regex" and its Definition.
type Format struct {
	Type       string `json:"type"`
	Syntax     string `json:"syntax,omitempty"`
	Definition string `json:"definition,omitempty"`
}

// Summary is the format in a few words, for listings.
func (f Format) Summary() string {
	if f.Type != "grammar" {
		return "text"
	}
	return f.Syntax + " grammar (" + strconv.Itoa(len(f.Definition)) + " bytes)"
}

// render writes the custom tool object: the same fields in the same
// order as the built-ins, compact, no HTML escaping, so the same tool is
// always the same bytes.
func (t *Tool) render() {
	obj := struct {
		Type        string `json:"type"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Format      Format `json:"format"`
	}{"custom", t.Name, t.Description, t.Format}
	t.JSON, _ = jsonline.Marshal(obj) // strings and a struct always encode
}

// Set is a validated set of declared tools, in file order, then in
// declaration order. It is never modified once loaded.
type Set struct {
	// Dir is the directory it was loaded from ("" for none).
	Dir    string
	Tools  []*Tool
	byName map[string]*Tool
	inject []byte
}

// Inject is every tool's JSON, each after a comma, as the request
// carries them after the built-ins. Shared: never write to it.
func (s *Set) Inject() []byte {
	if s == nil {
		return nil
	}
	return s.inject
}

// Lookup returns the tool named name, or nil.
func (s *Set) Lookup(name string) *Tool {
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// Len is the number of tools (0 for a nil Set).
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.Tools)
}

// Problem is one thing wrong with a tool file: File and Line (1-based; 0
// for the file as a whole) place it, Msg says what is wrong and what to do.
type Problem struct {
	File string
	Line int
	Msg  string
}

// String is the one-line form FILE:LINE: what; how to fix.
func (p Problem) String() string {
	if p.Line <= 0 {
		return p.File + ": " + p.Msg
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ": " + p.Msg
}
