package inspect

import (
	"path/filepath"
	"strings"

	"hpatch-router/worker/inspect/golang"
	"hpatch-router/worker/inspect/jsonfile"
	"hpatch-router/worker/inspect/jsts"
	"hpatch-router/worker/inspect/markdown"
	"hpatch-router/worker/inspect/outline"
	"hpatch-router/worker/inspect/python"
)

// The outline model is outline's; these names are the ones callers of
// Outline (hsymbol) use.
type (
	Entry  = outline.Entry
	Result = outline.Result
	Lines  = outline.Lines
)

// NewLines indexes data's rows by the project's row rule.
func NewLines(data []byte) *Lines { return outline.NewLines(data) }

// Entry kinds.
const (
	KindImport      = outline.KindImport
	KindConstant    = outline.KindConstant
	KindVariable    = outline.KindVariable
	KindType        = outline.KindType
	KindClass       = outline.KindClass
	KindFunction    = outline.KindFunction
	KindMethod      = outline.KindMethod
	KindHeading     = outline.KindHeading
	KindFrontMatter = outline.KindFrontMatter
	KindPointer     = outline.KindPointer
)

// outliner outlines one file's data; lines indexes the same data. A non-nil
// error means nothing usable came out (code "parse").
type outliner func(data []byte, lines *Lines) (Result, error)

// Language names the language inspect_file gives a path, by extension.
func Language(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".go":
		return "go"
	case ".md", ".markdown", ".mdown", ".mkd":
		return "markdown"
	case ".json":
		return "json"
	case ".py", ".pyi":
		return "python"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "tsx"
	}
	return "text"
}

// parserFor is the outliner of lang, nil for a language without one.
func parserFor(lang string) outliner {
	switch lang {
	case "go":
		return golang.Outline
	case "markdown":
		return markdown.Outline
	case "json":
		return jsonfile.Outline
	case "python":
		return python.Outline
	case "javascript", "typescript", "tsx":
		return func(data []byte, lines *Lines) (Result, error) { return jsts.Outline(lang, data, lines) }
	}
	return nil
}

// outlineHere parses data as lang in this process: only the outline
// process (ChildMain) and tests call it; everyone else calls Outline,
// which runs it there under limits. Entries carry both numeric rows and
// citations. Languages without a parser give kind "text", no entries and
// ParseComplete false.
func outlineHere(lang string, data []byte) (Result, error) {
	p := parserFor(lang)
	if p == nil {
		return Result{Kind: "text", Language: lang}, nil
	}
	lines := NewLines(data)
	res, err := p(data, lines)
	if err != nil {
		return res, err
	}
	res.Language = lang
	for i := range res.Entries {
		e := &res.Entries[i]
		if e.End < e.Start {
			e.End = e.Start
		}
		if e.NameLine == 0 {
			e.NameLine = e.Start
		}
		e.Line, e.LineEnd = lines.Cite(e.Start), lines.Cite(e.End)
	}
	return res, nil
}
