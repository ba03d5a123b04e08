package inspect

import (
	"path/filepath"
	"strings"
)

// Entry kinds.
const (
	KindImport      = "import"
	KindConstant    = "constant"
	KindVariable    = "variable"
	KindType        = "type"
	KindClass       = "class"
	KindFunction    = "function"
	KindMethod      = "method"
	KindHeading     = "heading"
	KindFrontMatter = "front_matter"
	KindPointer     = "pointer"
)

// Entry is one outline item. Start and End are 1-based rows; Line and
// LineEnd are their LINE:HASH citations, filled in by Outline. NameLine is
// the row where the name itself is written (after decorators, export or
// doc lines); Outline sets it to Start when a parser does not.
type Entry struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Receiver  string `json:"receiver,omitempty"`   // methods
	Level     int    `json:"level,omitempty"`      // headings
	ValueType string `json:"value_type,omitempty"` // JSON pointers
	Line      string `json:"line"`
	LineEnd   string `json:"line_end"`
	Start     int    `json:"-"`
	End       int    `json:"-"`
	NameLine  int    `json:"-"`
}

// Result is a file's outline as the parsers produce it.
type Result struct {
	Kind          string // "source", "markup", "data" or "text"
	Language      string
	ParseComplete bool
	Entries       []Entry
	Dropped       int // entries a parser counted but did not keep
}

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

func parserFor(lang string) outliner {
	switch lang {
	case "go":
		return outlineGo
	case "markdown":
		return outlineMarkdown
	case "json":
		return outlineJSON
	case "python":
		return outlinePython
	case "javascript", "typescript", "tsx":
		return outlineScript(lang)
	}
	return nil
}

// outline parses data as lang in this process: only the outline process
// (ChildMain) and tests call it; everyone else calls Outline, which runs
// it there under limits. Entries carry both numeric rows and citations.
// Languages without a parser give kind "text", no entries and
// ParseComplete false.
func outline(lang string, data []byte) (Result, error) {
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
