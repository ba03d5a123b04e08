package workspace

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"hpatch-router/retain"
)

// staged is a file's new version in a temporary file beside its target.
type staged struct {
	r    *os.Root
	temp string // "" for Remove
	dirs []string
}

// Write applies p: every new version goes to a temporary file beside its
// target first; then each target's bytes are checked once more against
// the baseline p was resolved against (and each name p creates is checked
// to be still free); only then are the files put in place, in order. A
// rewrite replaces the file by rename (its permission bits kept), a new
// file or a move's destination is linked (an existing name is never
// replaced), a removal unlinks. If any step fails, what was put in place
// is restored, the temporary files are removed, and the error says what
// failed, in the system's own words: inside Codex's sandbox that is the
// sandbox's refusal. Errors are one line without a tool prefix.
func (p *Plan) Write(ctx context.Context) error {
	rs := roots{}
	defer rs.close()
	st := make([]staged, len(p.Files))
	defer cleanUp(st)
	for i, f := range p.Files {
		r, err := rs.open(f.Root)
		if err != nil {
			return err
		}
		st[i].r = r
		if f.Action == Remove {
			continue
		}
		if st[i], err = stage(r, f); err != nil {
			return fmt.Errorf("cannot write %s (%w); nothing was changed", f.target(), retain.Pathless(err))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, f := range p.Files {
		if err := f.recheck(ctx, st[i].r); err != nil {
			return err
		}
	}
	for i, f := range p.Files {
		if err := f.put(st[i]); err != nil {
			restore(p.Files[:i], st[:i])
			return fmt.Errorf("cannot write %s (%w); nothing was changed", f.target(), retain.Pathless(err))
		}
		st[i].temp = "" // in place; its new directories stay unless a rollback empties them
	}
	return nil
}

// cleanUp removes what staging left: the temporary files, then the
// directories it created (deepest first; one that is not empty stays).
func cleanUp(st []staged) {
	for _, s := range st {
		if s.temp != "" {
			s.r.Remove(s.temp)
		}
	}
	for _, s := range st {
		for _, d := range s.dirs {
			s.r.Remove(d)
		}
	}
}

// target is where f's new bytes go, as the edit named it.
func (f File) target() string {
	if f.Dest != "" {
		return f.Dest
	}
	return f.Rel
}

// stage writes f.New to a new temporary file in the directory of f's
// target, creating that directory (and its parents) when missing.
func stage(r *os.Root, f File) (staged, error) {
	s := staged{r: r}
	dir := path.Dir(f.target())
	if dir != "." {
		missing, err := missingDirs(r, dir)
		if err != nil {
			return s, err
		}
		if err := r.MkdirAll(dir, 0o777); err != nil {
			return s, outside(err)
		}
		s.dirs = missing
	}
	mode := f.Mode
	if f.Action == Create {
		mode = 0o666 // and the umask, as any new file
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	temp := path.Join(dir, "."+path.Base(f.target())+".hpatch-"+hex.EncodeToString(rnd[:]))
	w, err := r.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return s, outside(err)
	}
	s.temp = temp
	_, err = w.Write(f.New)
	if err == nil && f.Action == Rewrite {
		err = w.Chmod(f.Mode) // the umask must not narrow an existing file's bits
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return s, err
}

// missingDirs lists the directories of dir that do not exist yet, deepest
// first, so a failed write can remove what it created.
func missingDirs(r *os.Root, dir string) ([]string, error) {
	var out []string
	for d := dir; d != "."; d = path.Dir(d) {
		_, err := lstat(r, d)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// recheck compares f's source with the bytes the plan was resolved
// against, and checks that a name f creates is still free.
func (f File) recheck(ctx context.Context, r *os.Root) error {
	if f.Action != Create {
		cur, err := readRegular(ctx, r, f.Rel)
		switch {
		case err != nil:
			return fmt.Errorf("%s %v since this edit was checked; nothing was written, read it again with hread", f.Name, changedErr(err))
		case !bytes.Equal(cur.data, f.Old):
			return fmt.Errorf("%s changed since this edit was checked; nothing was written, read it again with hread", f.Name)
		}
	}
	if f.Action == Create || f.Dest != "" {
		if err := absent(r, f.target()); err != nil {
			return fmt.Errorf("%s %v since this edit was checked; nothing was written", f.target(), changedErr(err))
		}
	}
	return nil
}

func changedErr(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "was removed"
	case errors.Is(err, fs.ErrExist):
		return "was created"
	}
	return fmt.Sprint(retain.Pathless(err))
}

// put puts f in place from its staged temporary file.
func (f File) put(s staged) error {
	switch {
	case f.Action == Remove:
		return s.r.Remove(f.Rel)
	case f.Action == Rewrite && f.Dest == "":
		return s.r.Rename(s.temp, f.Rel)
	}
	if err := linkNew(s.r, s.temp, f.target()); err != nil {
		return err
	}
	if f.Dest != "" {
		if err := s.r.Remove(f.Rel); err != nil {
			s.r.Remove(f.Dest)
			return err
		}
	}
	return nil
}

// linkNew gives the temporary file its final name without replacing an
// existing one: a hard link fails on any existing entry, and the
// temporary name is then removed. A file system without hard links gets a
// rename after one more check that the name is free.
func linkNew(r *os.Root, temp, name string) error {
	err := r.Link(temp, name)
	switch {
	case err == nil:
		r.Remove(temp)
		return nil
	case errors.Is(err, fs.ErrExist):
		return err
	}
	if err := absent(r, name); err != nil {
		return err
	}
	return r.Rename(temp, name)
}

// restore undoes the files already put in place, newest first.
func restore(done []File, st []staged) {
	for i := len(done) - 1; i >= 0; i-- {
		f, r := done[i], st[i].r
		switch {
		case f.Action == Create:
			r.Remove(f.Rel)
		case f.Action == Remove || f.Dest != "":
			if f.Dest != "" {
				r.Remove(f.Dest)
			}
			writeBack(r, f)
		default:
			writeBack(r, f)
		}
	}
}

// writeBack puts f.Old back at f.Rel.
func writeBack(r *os.Root, f File) {
	back := File{Action: Rewrite, Rel: f.Rel, New: f.Old, Mode: f.Mode}
	s, err := stage(r, back)
	if err == nil {
		err = r.Rename(s.temp, f.Rel)
	}
	if err != nil && s.temp != "" {
		r.Remove(s.temp)
	}
}
