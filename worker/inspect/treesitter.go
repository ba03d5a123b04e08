//go:build cgo

package inspect

import (
	"context"
	"fmt"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// treeSitterParser returns the tree-sitter outliner for lang, or nil.
func treeSitterParser(lang string) outliner {
	var get func() *sitter.Language
	switch lang {
	case "javascript":
		get = javascript.GetLanguage
	case "typescript":
		get = typescript.GetLanguage
	case "tsx":
		get = tsx.GetLanguage
	default:
		return nil
	}
	return func(data []byte, lines *Lines) (Result, error) {
		p := sitter.NewParser()
		defer p.Close()
		p.SetLanguage(get())
		tree, err := p.ParseCtx(context.Background(), nil, data)
		if err != nil {
			return Result{}, fmt.Errorf("tree-sitter: %v", err)
		}
		defer tree.Close()
		root := tree.RootNode()
		w := tsWalker{src: data, lines: lines, res: Result{Kind: "source", ParseComplete: !root.HasError()}}
		w.script(root)
		return w.res, nil
	}
}

// tsWalker collects top-level declarations and class members.
type tsWalker struct {
	src   []byte
	lines *Lines
	res   Result
}

func (w *tsWalker) add(kind string, name *sitter.Node, span *sitter.Node) *Entry {
	if name == nil || span == nil {
		return nil
	}
	end := int(span.EndByte()) - 1
	if end < int(span.StartByte()) {
		end = int(span.StartByte())
	}
	w.res.Entries = append(w.res.Entries, Entry{
		Kind: kind, Name: name.Content(w.src), NameLine: w.lines.LineOf(int(name.StartByte())),
		Start: w.lines.LineOf(int(span.StartByte())), End: w.lines.LineOf(end),
	})
	return &w.res.Entries[len(w.res.Entries)-1]
}

func namedChildren(n *sitter.Node) []*sitter.Node {
	var out []*sitter.Node
	for i := 0; i < int(n.NamedChildCount()); i++ {
		if c := n.NamedChild(i); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// script outlines JavaScript and TypeScript: imports, top-level
// declarations (exported or not), classes with their methods, and TypeScript
// interfaces, type aliases and enums as types.
func (w *tsWalker) script(root *sitter.Node) {
	for _, n := range namedChildren(root) {
		span := n
		for n.Type() == "export_statement" || n.Type() == "ambient_declaration" {
			d := n.ChildByFieldName("declaration")
			if d == nil && n.Type() == "ambient_declaration" && n.NamedChildCount() > 0 {
				d = n.NamedChild(0)
			}
			if d == nil {
				break
			}
			n = d
		}
		switch n.Type() {
		case "import_statement":
			if s := n.ChildByFieldName("source"); s != nil {
				if e := w.add(KindImport, s, span); e != nil {
					e.Name = strings.Trim(e.Name, "\"'`")
				}
			}
		case "lexical_declaration", "variable_declaration":
			kind := KindVariable
			if n.Child(0) != nil && n.Child(0).Type() == "const" {
				kind = KindConstant
			}
			for _, d := range namedChildren(n) {
				if d.Type() != "variable_declarator" {
					continue
				}
				k := kind
				if v := d.ChildByFieldName("value"); v != nil {
					switch v.Type() {
					case "arrow_function", "function", "function_expression", "generator_function":
						k = KindFunction
					}
				}
				if name := d.ChildByFieldName("name"); name != nil && name.Type() == "identifier" {
					w.add(k, name, span)
				}
			}
		case "function_declaration", "generator_function_declaration", "function_signature":
			w.add(KindFunction, n.ChildByFieldName("name"), span)
		case "class_declaration", "abstract_class_declaration", "class":
			name := n.ChildByFieldName("name")
			w.add(KindClass, name, span)
			if body := n.ChildByFieldName("body"); body != nil && name != nil {
				for _, m := range namedChildren(body) {
					switch m.Type() {
					case "method_definition", "method_signature", "abstract_method_signature":
						if e := w.add(KindMethod, m.ChildByFieldName("name"), m); e != nil {
							e.Receiver = name.Content(w.src)
						}
					}
				}
			}
		case "interface_declaration", "type_alias_declaration", "enum_declaration":
			w.add(KindType, n.ChildByFieldName("name"), span)
		}
	}
}
