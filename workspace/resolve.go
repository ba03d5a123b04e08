package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"hpatch-router/hpatch"
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
	Mode   fs.FileMode // the mode bits a rewrite keeps: permissions, setuid, setgid, sticky
	// InPlace: the file has other hard links, so a rewrite writes its own
	// inode (a rename would give this name a new file and leave the
	// other names the old one).
	InPlace bool

	meta             fileMeta // owner, group and identity as resolved
	entry, destEntry string   // the directory entries of Rel and Dest (entryKey)
}

// Plan is a resolved workspace edit: every file it touches, in the order
// the edit first names them, and the report the model reads on success.
// After lists the earlier calls of the same response whose writes the
// plan was resolved on top of (Pending.Resolve; nil for Resolve).
type Plan struct {
	Files  []File
	Report string
	After  []Prior
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

// Resolve reads every file p names, under env, and resolves the whole edit
// against those bytes. Nothing is written. Errors are one line: a
// *hpatch.Error at the input line at fault.
func Resolve(ctx context.Context, env Env, p *hpatch.Patch) (*Plan, error) {
	src := newSource(nil)
	defer src.rs.close()
	return resolveWith(ctx, src, env, p)
}

func resolveWith(ctx context.Context, src *source, env Env, p *hpatch.Patch) (*Plan, error) {
	if !p.Workspace {
		return nil, &hpatch.Error{Msg: "this edit names retained scripts, not workspace files"}
	}
	if len(env.Roots) == 0 {
		return nil, &hpatch.Error{Line: p.Sections[0].Line, Msg: "this turn declares no workspace root, so hpatch cannot edit workspace files; edit them with the shell"}
	}
	entries, err := group(ctx, src, env, p)
	if err != nil {
		return nil, err
	}
	plan := &Plan{}
	var report strings.Builder
	for _, e := range entries {
		f, rep, err := e.resolve(src)
		if err != nil {
			return nil, err
		}
		plan.Files = append(plan.Files, f)
		report.WriteString(rep)
	}
	plan.Report = report.String()
	return plan, nil
}

// entry is one file while the edit is resolved: every section that names
// it, by any of its names, merged into one.
type entry struct {
	at      place
	v       view
	sec     *hpatch.Section // the first section naming it
	ops     []hpatch.Op     // the operations of every merged section, in order
	aliases []string        // its other names, as written
	named   map[string]bool // place keys already merged

	destPath string // the `mv` destination as written, and its line
	destLine int
	dest     place
	destV    view
}

// group reads what every section names and merges the sections that reach
// one file (one device and inode, or one directory entry): by one path,
// two paths through a symlinked directory, or two hard links. Merged
// sections share one baseline, so their edits apply in order. A file may
// be created, removed or moved under one name only, and two sections may
// not create, remove or move onto one name. Merging appends, so grouping
// is linear in the number of sections.
func group(ctx context.Context, src *source, env Env, p *hpatch.Patch) ([]*entry, error) {
	var entries []*entry
	byIdent := map[string]*entry{}
	line := map[string]int{} // the first line naming each identity
	for _, s := range p.Sections {
		at, err := env.locate(s.Path)
		if err != nil {
			return nil, hpatch.WrapAt(s.Line, err)
		}
		v, err := src.name(ctx, at, s.Kind == hpatch.SectionNew)
		if err != nil {
			return nil, fileErr(s.Line, s.Path, err, "")
		}
		if prev := byIdent[v.ident()]; prev != nil {
			if err := prev.merge(s, at); err != nil {
				return nil, err
			}
			continue
		}
		e := &entry{at: at, v: v, sec: s, ops: append([]hpatch.Op(nil), s.Ops...), destPath: s.Dest, destLine: s.DestLine}
		byIdent[v.ident()], line[v.ident()] = e, s.Line
		entries = append(entries, e)
	}
	for _, e := range entries {
		if e.destPath == "" {
			continue
		}
		if err := e.locateDest(ctx, src, env); err != nil {
			return nil, err
		}
		id := e.destV.ident()
		if l, ok := line[id]; ok {
			return nil, hpatch.ErrorAt(e.destLine, "%s is also named at line %d; an edit may create, remove or move onto a file only once, and not edit it elsewhere", e.destPath, l)
		}
		line[id] = e.destLine
	}
	return entries, nil
}

// merge adds section s, which names e's file at at, to e.
func (e *entry) merge(s *hpatch.Section, at place) error {
	same := at == e.at
	switch {
	case same && (s.Kind != hpatch.SectionEdit || e.sec.Kind != hpatch.SectionEdit):
		return hpatch.ErrorAt(s.Line, "%s is also named at line %d; an edit may create, remove or move onto a file only once, and not edit it elsewhere", s.Path, e.sec.Line)
	case !same && (s.Kind != hpatch.SectionEdit || e.sec.Kind != hpatch.SectionEdit || s.Dest != "" || e.destPath != ""):
		return hpatch.ErrorAt(s.Line, "%s and %s (line %d) are one file (a hard link, or a path through a symlinked directory); it may be created, moved or removed under one name only: name it one way in this edit", s.Path, e.sec.Path, e.sec.Line)
	case s.Dest != "" && e.destPath != "":
		return hpatch.ErrorAt(s.DestLine, "%s is already moved at line %d; move a file once", s.Path, e.destLine)
	}
	e.ops = append(e.ops, s.Ops...)
	if s.Dest != "" {
		e.destPath, e.destLine = s.Dest, s.DestLine
	}
	if !same && !e.named[at.key()] {
		if e.named == nil {
			e.named = map[string]bool{}
		}
		e.named[at.key()] = true
		e.aliases = append(e.aliases, s.Path)
	}
	return nil
}

// locateDest resolves the `mv` destination of e, which must lie in the
// same root and be another entry than the file's own.
func (e *entry) locateDest(ctx context.Context, src *source, env Env) error {
	d, err := env.locate(e.destPath)
	switch {
	case err != nil:
		return hpatch.WrapAt(e.destLine, err)
	case d.root != e.at.root:
		return hpatch.ErrorAt(e.destLine, "mv %s: the destination is in another workspace root (%s, not %s); move files within one root", e.destPath, d.root, e.at.root)
	}
	dv, err := src.name(ctx, d, true)
	switch {
	case err != nil:
		return fileErr(e.destLine, e.destPath, err, "")
	case d == e.at || dv.entry == e.v.entry || dv.ident() == e.v.ident():
		return hpatch.ErrorAt(e.destLine, "mv %s: the destination is the file itself", e.destPath)
	}
	e.dest, e.destV = d, dv
	return nil
}

// resolve resolves e's merged section against its view.
func (e *entry) resolve(src *source) (File, string, error) {
	s := e.sec
	r, err := src.rs.open(e.at.root)
	if err != nil {
		return File{}, "", hpatch.WrapAt(s.Line, err)
	}
	f := File{Root: e.at.root, Rel: e.at.rel, Name: s.Path, entry: e.v.entry}
	if s.Kind == hpatch.SectionNew {
		if err := free(r, e.at, e.v); err != nil {
			return File{}, "", fileErr(s.Line, s.Path, err, "edit it with `in` instead of `new`")
		}
		f.Action, f.New = Create, s.Content
		if len(f.New) > MaxFileBytes {
			return File{}, "", hpatch.ErrorAt(s.Line, "new %s would be %d bytes; hpatch writes files of at most %d bytes", s.Path, len(f.New), MaxFileBytes)
		}
		return f, newReport(s.Path, f.New), nil
	}
	if !e.v.exists {
		return File{}, "", fileErr(s.Line, s.Path, fs.ErrNotExist, "")
	}
	f.Old, f.Mode, f.meta = e.v.data, e.v.meta.mode, e.v.meta
	if s.Kind == hpatch.SectionRemove {
		f.Action = Remove
		return f, s.Path + " (removed)\n", nil
	}
	f.InPlace = e.v.meta.links > 1
	header := s.Path
	if len(e.aliases) > 0 {
		header += " (also " + strings.Join(e.aliases, ", ") + ")"
	}
	if e.destPath != "" {
		if err := free(r, e.dest, e.destV); err != nil {
			return File{}, "", fileErr(e.destLine, e.destPath, err, "choose a name that does not exist")
		}
		f.Dest, f.destEntry = e.dest.rel, e.destV.entry
		header += " -> " + e.destPath
	}
	if len(e.ops) == 0 {
		f.New = f.Old
		return f, header + "\n(moved; content unchanged)\n", nil
	}
	merged := *s
	merged.Ops = e.ops
	ed, err := merged.Apply(f.Old, MaxFileBytes)
	if err != nil {
		return File{}, "", err
	}
	f.New = ed.New
	return f, header + strings.TrimPrefix(ed.Report, s.Path), nil
}

// free checks that the name at, seen as v, can be created: it does not
// exist and, unless an earlier call of the response decides that, its
// parents on disk are directories inside the root.
func free(r *os.Root, at place, v view) error {
	switch {
	case v.exists:
		return fs.ErrExist
	case v.pending:
		return nil
	}
	return absent(r, at.rel)
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
		return hpatch.ErrorAt(line, "%s already exists; %s", name, existHint)
	case errors.Is(err, fs.ErrNotExist):
		return hpatch.ErrorAt(line, "%s does not exist; check the path with `hread %s` or create it with `new %s`", name, name, name)
	case errors.Is(err, errOutside):
		return hpatch.ErrorAt(line, "%s %v; refused", name, err)
	case errors.Is(err, fs.ErrPermission):
		return hpatch.ErrorAt(line, "%s cannot be read (%v); check its permissions", name, retain.Pathless(err))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return hpatch.ErrorAt(line, "%s cannot be read (%v)", name, pe.Err)
	}
	return hpatch.ErrorAt(line, "%s %v", name, err)
}
