package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"hpatch-router/retain"
	"hpatch-router/rows"
)

// Action is what a Plan does with one file.
type Action int

const (
	Rewrite Action = iota // replace its bytes (and move it when Dest is set)
	Create                // create it with New
	Remove                // delete it
)

// File is one file of a Plan.
type File struct {
	Action Action
	Root   string      // the workspace root holding it
	Rel    string      // its path inside Root
	Dest   string      // where a move puts it, inside Root ("" when it stays)
	Name   string      // the path as the edit wrote it
	Old    []byte      // the bytes the edit was resolved against (nil for Create)
	New    []byte      // the bytes to write (nil for Remove)
	Mode   fs.FileMode // the permission bits a rewrite keeps
}

// Plan is a resolved workspace edit: every file it touches, in the order
// the edit first names them, and the report the model reads on success.
type Plan struct {
	Files  []File
	Report string
}

// Digest identifies the baseline a plan was resolved against: each file's
// place and current bytes. A later resolution of the same edit with the
// same digest produces the same plan, since resolution is a function of
// the edit and those bytes.
func (p *Plan) Digest() string {
	h := sha256.New()
	for _, f := range p.Files {
		fmt.Fprintf(h, "%d\x00%s\x00%s\x00%s\x00%d\x00", f.Action, f.Root, f.Rel, f.Dest, len(f.Old))
		h.Write(f.Old)
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:16])
}

// entry is one file while the edit is resolved: the merged section of all
// `in` lines that name it.
type entry struct {
	at   place
	dest place
	sec  *retain.Section
}

// Resolve reads every file p names, under env, and resolves the whole edit
// against those bytes. Nothing is written. Errors are one line: a
// *retain.PatchError at the input line at fault.
func Resolve(ctx context.Context, env Env, p *retain.Patch) (*Plan, error) {
	if !p.Workspace {
		return nil, &retain.PatchError{Msg: "this edit names retained scripts, not workspace files"}
	}
	if len(env.Roots) == 0 {
		return nil, &retain.PatchError{Line: p.Sections[0].Line, Msg: "this turn declares no workspace root, so hpatch cannot edit workspace files; edit them with the shell"}
	}
	entries, err := group(env, p)
	if err != nil {
		return nil, err
	}
	rs := roots{}
	defer rs.close()
	plan := &Plan{}
	var report strings.Builder
	for _, e := range entries {
		f, rep, err := resolveEntry(ctx, rs, e)
		if err != nil {
			return nil, err
		}
		plan.Files = append(plan.Files, f)
		report.WriteString(rep)
	}
	plan.Report = report.String()
	return plan, nil
}

// group locates every section and merges the sections that name one file;
// two sections that would create, remove or move onto one file conflict.
func group(env Env, p *retain.Patch) ([]*entry, error) {
	var entries []*entry
	byKey := map[string]*entry{}
	firstLine := map[string]int{} // every place named, as source or destination
	claim := func(at place, line int) error {
		if l, ok := firstLine[at.key()]; ok && l != line {
			return errAt(line, "%s is also named at line %d; an edit may create, remove or move onto a file only once, and not edit it elsewhere", at.rel, l)
		}
		firstLine[at.key()] = line
		return nil
	}
	for _, s := range p.Sections {
		at, err := env.locate(s.Path)
		if err != nil {
			return nil, wrapAt(s.Line, err)
		}
		if prev := byKey[at.key()]; prev != nil && s.Kind == retain.SectionEdit && prev.sec.Kind == retain.SectionEdit {
			if s.Dest != "" && prev.sec.Dest != "" {
				return nil, errAt(s.DestLine, "%s is already moved at line %d; move a file once", s.Path, prev.sec.DestLine)
			}
			merged := *prev.sec
			merged.Ops = append(append([]retain.Op(nil), prev.sec.Ops...), s.Ops...)
			if s.Dest != "" {
				merged.Dest, merged.DestLine = s.Dest, s.DestLine
			}
			prev.sec = &merged
			if err := prev.locateDest(env); err != nil {
				return nil, err
			}
			continue
		}
		if err := claim(at, s.Line); err != nil {
			return nil, err
		}
		e := &entry{at: at, sec: s}
		if err := e.locateDest(env); err != nil {
			return nil, err
		}
		byKey[at.key()] = e
		entries = append(entries, e)
	}
	for _, e := range entries {
		if e.sec.Dest == "" {
			continue
		}
		if err := claim(e.dest, e.sec.DestLine); err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// locateDest resolves the `mv` destination of e, which must lie in the
// same root and differ from the file.
func (e *entry) locateDest(env Env) error {
	if e.sec.Dest == "" {
		return nil
	}
	d, err := env.locate(e.sec.Dest)
	switch {
	case err != nil:
		return wrapAt(e.sec.DestLine, err)
	case d.root != e.at.root:
		return errAt(e.sec.DestLine, "mv %s: the destination is in another workspace root (%s, not %s); move files within one root", e.sec.Dest, d.root, e.at.root)
	case d == e.at:
		return errAt(e.sec.DestLine, "mv %s: the destination is the file itself", e.sec.Dest)
	}
	e.dest = d
	return nil
}

// resolveEntry reads one file and resolves its section.
func resolveEntry(ctx context.Context, rs roots, e *entry) (File, string, error) {
	s := e.sec
	r, err := rs.open(e.at.root)
	if err != nil {
		return File{}, "", wrapAt(s.Line, err)
	}
	f := File{Root: e.at.root, Rel: e.at.rel, Name: s.Path}
	if s.Kind == retain.SectionNew {
		if err := absent(r, e.at.rel); err != nil {
			return File{}, "", fileErr(s.Line, s.Path, err, "edit it with `in` instead of `new`")
		}
		f.Action, f.New = Create, s.Content
		if len(f.New) > MaxFileBytes {
			return File{}, "", errAt(s.Line, "new %s would be %d bytes; hpatch writes files of at most %d bytes", s.Path, len(f.New), MaxFileBytes)
		}
		return f, newReport(s.Path, f.New), nil
	}
	st, err := readRegular(ctx, r, e.at.rel)
	if err != nil {
		return File{}, "", fileErr(s.Line, s.Path, err, "")
	}
	f.Old, f.Mode = st.data, st.mode
	if s.Kind == retain.SectionRemove {
		f.Action = Remove
		return f, s.Path + " (removed)\n", nil
	}
	header := s.Path
	if s.Dest != "" {
		if err := absent(r, e.dest.rel); err != nil {
			return File{}, "", fileErr(s.DestLine, s.Dest, err, "choose a name that does not exist")
		}
		f.Dest = e.dest.rel
		header = s.Path + " -> " + s.Dest
	}
	if len(s.Ops) == 0 {
		f.New = f.Old
		return f, header + "\n(moved; content unchanged)\n", nil
	}
	ed, err := s.Apply(f.Old, MaxFileBytes)
	if err != nil {
		return File{}, "", err
	}
	f.New = ed.New
	return f, header + strings.TrimPrefix(ed.Report, s.Path), nil
}

// newReport lists every row of a created file, as hread would show it.
func newReport(name string, data []byte) string {
	var b strings.Builder
	b.WriteString(name + " (new)\n")
	n := 0
	for r := range rows.All(data) {
		b.WriteString(r.Cite() + " " + string(r.Text) + "\n")
		n++
	}
	if n == 0 {
		b.WriteString("(empty)\n")
	}
	return b.String()
}

// fileErr words an error about one file for the model: what was wrong
// with which path, and what to do.
func fileErr(line int, name string, err error, existHint string) error {
	switch {
	case errors.Is(err, fs.ErrExist):
		return errAt(line, "%s already exists; %s", name, existHint)
	case errors.Is(err, fs.ErrNotExist):
		return errAt(line, "%s does not exist; check the path with `hread %s` or create it with `new %s`", name, name, name)
	case errors.Is(err, errOutside):
		return errAt(line, "%s %v; refused", name, err)
	case errors.Is(err, fs.ErrPermission):
		return errAt(line, "%s cannot be read (%v); check its permissions", name, retain.Pathless(err))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return errAt(line, "%s cannot be read (%v)", name, pe.Err)
	}
	return errAt(line, "%s %v", name, err)
}

func errAt(line int, format string, args ...any) error {
	return &retain.PatchError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

func wrapAt(line int, err error) error {
	return &retain.PatchError{Line: line, Msg: err.Error(), Err: err}
}
