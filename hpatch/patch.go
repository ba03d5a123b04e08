package hpatch

import (
	"encoding/json"
	"fmt"
	"strconv"

	"hpatch-router/scriptref"
)

// Patch is a parsed hpatch edit of either retained scripts or workspace
// files (Workspace), never both. Script sections are one per script, in
// the order of their first `in` line: several `in` lines for the same
// script merge, so all its edits share one baseline. File sections are one
// per `in`/`new` line as written; which of them name the same file is the
// workspace resolver's to decide, since only it knows the cwd.
type Patch struct {
	Sections  []*Section
	Workspace bool
}

// SectionKind tells what a section does with its file.
type SectionKind int

const (
	SectionEdit   SectionKind = iota // `in`: edit (and with Dest, rename) an existing file
	SectionNew                       // `new PATH` + `type VALUE`: create a file
	SectionRemove                    // `in PATH` + `rm`: delete a file
)

// Section holds the edits of one script or workspace file.
type Section struct {
	ID   string // artifact id (scripts)
	Path string // workspace path as written, JSON quotes removed (files)
	Line int    // input line of its first `in` or its `new`
	Kind SectionKind
	// Dest is the `mv` destination as written ("" when the file stays);
	// DestLine is the input line of the `mv`.
	Dest     string
	DestLine int
	// Content is the exact bytes a `new` file gets: VALUE's rows with
	// their own line endings, the last one ended too (newFileContent).
	Content []byte
	Ops     []Op
}

// Name is how messages name the section's file: `@shell/<id>` or the path.
func (s *Section) Name() string {
	if s.Path != "" {
		return s.Path
	}
	return scriptref.FormatRef(s.ID)
}

// OpKind tells `type` from `add`.
type OpKind int

const (
	OpType OpKind = iota + 1 // replace the targeted rows
	OpAdd                    // insert before a row, or at EOF
)

// Op is one `type` or `add` line.
type Op struct {
	Kind OpKind
	Line int // input line of the command
	From Pos // first targeted row, or the insertion point of add
	To   Pos // last targeted row (== From for a single row, a text target and add)
	// Value is the lines of VALUE without terminators; empty means delete
	// for type (add rejects it at parse time).
	Value []string
}

// Pos is a cited row `L:HASH`, EOF for `add EOF`, or a text target
// `"TEXT" [COUNT]`: the Count rows whose text contains Text.
type Pos struct {
	Line  int
	Hash  string
	EOF   bool
	Text  string
	Count int
}

// IsText reports whether p is a text target.
func (p Pos) IsText() bool { return p.Count > 0 }

func (p Pos) String() string {
	switch {
	case p.EOF:
		return "EOF"
	case p.IsText():
		q, _ := json.Marshal(p.Text)
		if p.Count == 1 {
			return string(q)
		}
		return string(q) + " " + strconv.Itoa(p.Count)
	}
	return strconv.Itoa(p.Line) + ":" + p.Hash
}

// Error is a rejected hpatch edit; Line is the input line (0 when
// the whole input is at fault). Its message is one line without a tool
// prefix (the router adds "hpatch: "). Err is the underlying error when
// there is one (a *scriptref.RefError, a store error), for errors.Is/As.
type Error struct {
	Line int
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorAt is an *Error at input line line; package workspace and the
// store reject edits with it too, so the model reads one form.
func ErrorAt(line int, format string, args ...any) error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// WrapAt is an *Error at line that carries err.
func WrapAt(line int, err error) error {
	return &Error{Line: line, Msg: err.Error(), Err: err}
}

// clip shortens s for a one-line message and quotes nothing itself.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
