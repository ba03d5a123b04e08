package outline

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
// LineEnd are their LINE:HASH citations, filled in by inspect's Outline.
// NameLine is the row where the name itself is written (after
// decorators, export or doc lines); Outline sets it to Start when a
// parser does not.
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
