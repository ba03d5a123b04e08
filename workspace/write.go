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
	"syscall"

	"hpatch-router/regfile"
	"hpatch-router/retain"
)

// staged is a file's new version in a temporary file beside its target.
type staged struct {
	r    *os.Root
	temp string // "" for Remove and a rewrite in place
	dirs []string
	seen fs.FileInfo // the source as the last check read it (nil for Create)
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
		seen, err := f.recheck(ctx, st[i].r)
		if err != nil {
			return err
		}
		st[i].seen = seen
		if err := keep(f, st[i]); err != nil {
			return fmt.Errorf("cannot write %s (%w); nothing was changed", f.target(), retain.Pathless(err))
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
// target, creating that directory (and its parents) when missing. A
// rewrite in place stages nothing.
func stage(r *os.Root, f File) (staged, error) {
	s := staged{r: r}
	if f.Action == Rewrite && f.InPlace {
		return s, nil
	}
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
	mode := fs.FileMode(0o600) // a rewrite's copy gets its mode last (keep)
	if f.Action == Create {
		mode = 0o666 // and the umask, as any new file
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	temp := path.Join(dir, "."+path.Base(f.target())+".hpatch-"+hex.EncodeToString(rnd[:]))
	if err := regfile.WriteNew(r, temp, 0, mode, f.New); err != nil {
		return s, outside(err)
	}
	s.temp = temp
	return s, nil
}

// keep gives s.temp, the new copy of f, what the file it replaces has:
// owner and group, the extended attributes, then the mode bits (chown
// clears setuid and setgid; the copy was made 0600 so that it stays
// writable until then). A file that cannot keep them is refused, before
// anything is put in place. The file must still be the one resolved
// (f.meta.id); a rollback (no id) copies from whatever holds the name,
// or only the resolved owner and mode when nothing does.
func keep(f File, s staged) error {
	if f.Action != Rewrite || s.temp == "" {
		return nil
	}
	w, err := s.r.OpenFile(s.temp, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer w.Close()
	m := f.meta
	src, err := s.r.OpenFile(f.Rel, os.O_RDONLY|regfile.OpenFlags, 0)
	switch {
	case err == nil:
		defer src.Close()
		fi, err := src.Stat()
		if err != nil {
			return err
		}
		if m = metaOf(fi); f.meta.id != "" && m.id != f.meta.id {
			return errors.New("it was replaced since this edit was checked; read it again with hread")
		}
	case f.meta.id != "" || !errors.Is(err, fs.ErrNotExist):
		return outside(err)
	default:
		src = nil
	}
	if err := chown(w, m); err != nil {
		return err
	}
	if src != nil {
		if err := copyXattrs(src, w); err != nil {
			return err
		}
	}
	if err := w.Chmod(m.mode); err != nil {
		return fmt.Errorf("cannot keep its mode %v (%w)", m.mode, retain.Pathless(err))
	}
	return nil
}

// chown gives w the owner and group of m when it has others. An
// unprivileged writer cannot give a file away, so the rewrite is refused
// rather than changing the owner.
func chown(w *os.File, m fileMeta) error {
	if m.uid < 0 {
		return nil
	}
	if fi, err := w.Stat(); err == nil {
		if have := metaOf(fi); have.uid == m.uid && have.gid == m.gid {
			return nil
		}
	}
	if err := w.Chown(m.uid, m.gid); err != nil {
		why := "this process may not give a file away"
		if errors.Is(err, syscall.EINVAL) {
			why = "an owner this sandbox's user namespace does not map"
		}
		return fmt.Errorf("hpatch writes a new copy and cannot give it the file's owner uid %d, gid %d (%v: %s); change the file as its owner, or write it in place with the shell", m.uid, m.gid, retain.Pathless(err), why)
	}
	return nil
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
// against, and checks that a name f creates is still free. It returns
// the source as it read it, for the last look before the rename.
func (f File) recheck(ctx context.Context, r *os.Root) (fs.FileInfo, error) {
	var seen fs.FileInfo
	if f.Action != Create {
		cur, err := readRegular(ctx, r, f.Rel)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s %v since this edit was checked; nothing was written, read it again with hread", f.Name, changedErr(err))
		case !bytes.Equal(cur.data, f.Old):
			return nil, fmt.Errorf("%s changed since this edit was checked; nothing was written, read it again with hread", f.Name)
		}
		seen = cur.info
	}
	if f.Action == Create || f.Dest != "" {
		if err := absent(r, f.target()); err != nil {
			return nil, fmt.Errorf("%s %v since this edit was checked; nothing was written", f.target(), changedErr(err))
		}
	}
	return seen, nil
}

// errWrittenMeanwhile is a source that changed after its last check,
// while the other files of the edit were being put in place.
var errWrittenMeanwhile = errors.New("it changed while hpatch was writing it (another process writes it); read it again with hread")

// unchanged is the last look at f's source before it is replaced: the
// same file, size and modification time as the last check read. It
// narrows, without closing, the window in which a process appending to
// the file loses what it appends (package doc, "The write window").
func unchanged(r *os.Root, f File, seen fs.FileInfo) error {
	if seen == nil {
		return nil
	}
	fi, err := r.Lstat(f.Rel)
	if err != nil {
		return err
	}
	if !os.SameFile(fi, seen) || fi.Size() != seen.Size() || !fi.ModTime().Equal(seen.ModTime()) {
		return errWrittenMeanwhile
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

// put puts f in place from its staged temporary file, or for a rewrite
// in place, writes its inode.
func (f File) put(s staged) error {
	if err := unchanged(s.r, f, s.seen); err != nil {
		return err
	}
	from := s.temp
	switch {
	case f.Action == Remove:
		return s.r.Remove(f.Rel)
	case f.Action == Rewrite && f.InPlace:
		if err := writeInPlace(s.r, f, f.New); err != nil {
			if !errors.Is(err, errWrittenMeanwhile) {
				writeInPlace(s.r, f, f.Old) // a write that stopped halfway
			}
			return err
		}
		if f.Dest == "" {
			return nil
		}
		from = f.Rel // the move is a new link and the old name's removal
	case f.Action == Rewrite && f.Dest == "":
		return s.r.Rename(s.temp, f.Rel)
	}
	if err := linkNew(s.r, from, f.target()); err != nil {
		return err
	}
	if f.Dest != "" && from != f.Rel {
		if err := s.r.Remove(f.Rel); err != nil {
			s.r.Remove(f.Dest)
			return err
		}
	}
	return nil
}

// writeInPlace writes data over f's own inode: the file that has other
// hard links keeps them, and its owner, group and extended attributes
// with them. The mode is set again, since a write by an unprivileged
// process clears setuid and setgid.
func writeInPlace(r *os.Root, f File, data []byte) error {
	w, err := r.OpenFile(f.Rel, os.O_WRONLY|regfile.OpenFlags, 0)
	if err != nil {
		return outside(err)
	}
	fi, err := w.Stat()
	if err == nil && metaOf(fi).id != f.meta.id {
		err = errWrittenMeanwhile
	}
	if err == nil {
		_, err = w.WriteAt(data, 0)
	}
	if err == nil {
		err = w.Truncate(int64(len(data)))
	}
	if err == nil {
		if after, serr := w.Stat(); serr == nil && after.Mode()&keptMode != f.Mode {
			err = w.Chmod(f.Mode)
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// linkNew gives the temporary file its final name without replacing an
// existing one: a hard link fails on any existing entry, and the
// temporary name is then removed. A file system without hard links gets a
// rename after one more check that the name is free.
func linkNew(r *os.Root, temp, name string) error {
	err := regfile.LinkNew(r, temp, name)
	if err == nil || errors.Is(err, fs.ErrExist) {
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
		case f.InPlace:
			if f.Dest != "" {
				linkNew(r, f.Dest, f.Rel) // the name comes back; the inode stayed
			}
			writeInPlace(r, f, f.Old)
		default:
			if f.Dest != "" {
				r.Remove(f.Dest)
			}
			writeBack(r, f)
		}
	}
}

// writeBack puts f.Old back at f.Rel by a new copy with f's metadata.
func writeBack(r *os.Root, f File) {
	meta := f.meta
	meta.id = ""
	back := File{Action: Rewrite, Rel: f.Rel, New: f.Old, Mode: f.Mode, meta: meta}
	s, err := stage(r, back)
	if err == nil {
		err = keep(back, s)
	}
	if err == nil {
		err = r.Rename(s.temp, f.Rel)
	}
	if err != nil && s.temp != "" {
		r.Remove(s.temp)
	}
}
