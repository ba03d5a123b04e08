package golang

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"

	"hpatch-router/rows"
	"hpatch-router/worker/inspect/outline"
)

// Outline lists a Go file's imports and top-level declarations. A file
// with syntax errors still gives what go/parser recovered, with
// ParseComplete false; one without a package clause is a parse error.
func Outline(data []byte, lines *outline.Lines) (outline.Result, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", data, parser.SkipObjectResolution|parser.AllErrors)
	if f == nil || f.Name == nil || !f.Package.IsValid() || f.Name.Name == "_" && err != nil {
		return outline.Result{}, goParseError(err)
	}
	res := outline.Result{Kind: "source", ParseComplete: err == nil}
	line := func(p token.Pos) int {
		return lines.LineOf(fset.Position(p).Offset)
	}
	// End positions point one past the last byte.
	lineEnd := func(p token.Pos) int {
		off := fset.Position(p).Offset - 1
		if off < 0 {
			off = 0
		}
		return lines.LineOf(off)
	}
	// at is where the name itself is written. A declaration the parser
	// recovered from an error may have no end: it ends where it starts.
	add := func(kind, name string, at, from, to token.Pos) *outline.Entry {
		start := line(from)
		res.Entries = append(res.Entries, outline.Entry{Kind: kind, Name: name, NameLine: line(at), Start: start, End: max(lineEnd(to), start)})
		return &res.Entries[len(res.Entries)-1]
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			grouped := d.Lparen.IsValid()
			for _, s := range d.Specs {
				from, to := s.Pos(), s.End()
				if !grouped {
					from, to = d.Pos(), d.End()
				}
				switch s := s.(type) {
				case *ast.ImportSpec:
					path, uerr := strconv.Unquote(s.Path.Value)
					if uerr != nil {
						path = s.Path.Value
					}
					add(outline.KindImport, path, s.Path.Pos(), from, to)
				case *ast.TypeSpec:
					add(outline.KindType, s.Name.Name, s.Name.Pos(), from, to)
				case *ast.ValueSpec:
					kind := outline.KindVariable
					if d.Tok == token.CONST {
						kind = outline.KindConstant
					}
					for _, n := range s.Names {
						add(kind, n.Name, n.Pos(), from, to)
					}
				}
			}
		case *ast.FuncDecl:
			if d.Name == nil {
				continue
			}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				e := add(outline.KindMethod, d.Name.Name, d.Name.Pos(), d.Pos(), d.End())
				e.Receiver = receiverType(d.Recv.List[0].Type)
				continue
			}
			add(outline.KindFunction, d.Name.Name, d.Name.Pos(), d.Pos(), d.End())
		}
	}
	return res, nil
}

// receiverType renders a receiver's type: "T", "*T", "*T[K]".
func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + receiverType(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return receiverType(e.X) + "[" + receiverType(e.Index) + "]"
	case *ast.IndexListExpr:
		var params []string
		for _, x := range e.Indices {
			params = append(params, receiverType(x))
		}
		return receiverType(e.X) + "[" + strings.Join(params, ", ") + "]"
	case *ast.ParenExpr:
		return receiverType(e.X)
	}
	return "?"
}

// goParseError is go/parser's first error as one line.
func goParseError(err error) error {
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		err = list[0]
	}
	if err == nil {
		return fmt.Errorf("not a Go source file: no package clause")
	}
	return fmt.Errorf("Go syntax: %s", rows.OneLineSpaced(err.Error()))
}
