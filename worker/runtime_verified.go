//go:build linux

package worker

import (
	"io/fs"
	"os"
	"slices"
	"syscall"
	"time"

	"hpatch-router/ident"
)

// settleMargin is how much older than the start of a verification a thread
// directory's change time must be before PrepareThread trusts that
// verification later. File system timestamps are coarse, so a change made
// in the same tick as the last recorded one can leave the change time as
// it was; a change made after a verification that started more than a
// margin after the recorded change time always gives the directory a
// later one. A change time with a fraction of a second comes from a file
// system that keeps nanoseconds and the kernel's clock tick (at most 10
// ms); a whole second may come from one that keeps seconds (or two, on
// the coarsest).
const (
	settleMargin       = 2 * time.Second
	settleMarginFracNs = 100 * time.Millisecond
)

// verifiedThread is what PrepareThread verified for a thread directory:
// the identity of the directory, its status right after verification, and
// the checked attributes of its scripts/. The directory's status covers
// its own type, owner and mode and its entries (scripts/ and .runtime),
// since creating, removing, renaming or replacing an entry changes the
// directory's ctime, which nobody can set back (it follows the system
// clock). scripts/ changes with every retained script, so it is compared
// on what PrepareThread checks there: identity, type, owner and mode.
type verifiedThread struct {
	id      fileID
	dir     dirStatus
	scripts dirStatus // only dev, ino, mode and uid
	settled bool      // dir was taken long enough after its last change to compare it
	held    *os.Root  // the directory itself while among the last verified (holdLocked); else nil
	used    time.Time // the last PrepareThread of the thread (touchLocked): its idle time starts there
}

// MaxHeldThreads bounds the thread directories the runtime holds open,
// however many threads it serves: the most recently verified settled ones. A held directory's scripts/ is
// checked with one lstat in it; any other takes three system calls (an
// lstat through an os.Root opens and closes the directory on the way).
const MaxHeldThreads = 16

// dirStatus is the part of a directory's status that changes whenever the
// directory or its list of entries does.
type dirStatus struct {
	dev, ino, nlink uint64
	mode, uid, gid  uint32
	ctime, mtime    syscall.Timespec
}

// checked is the part of s that PrepareThread checks for scripts/.
func (s dirStatus) checked() dirStatus {
	return dirStatus{dev: s.dev, ino: s.ino, mode: s.mode, uid: s.uid}
}

// status returns the status of name below dir, without following a final
// link, and the FileInfo it came from.
func status(dir *os.Root, name string) (dirStatus, fs.FileInfo, bool) {
	fi, err := dir.Lstat(name)
	if err != nil {
		return dirStatus{}, nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirStatus{}, nil, false
	}
	return dirStatus{
		dev: uint64(st.Dev), ino: st.Ino, nlink: uint64(st.Nlink),
		mode: st.Mode, uid: st.Uid, gid: st.Gid,
		ctime: st.Ctim, mtime: st.Mtim,
	}, fi, true
}

// settledBefore reports whether the last change of the directory was more
// than its file system's settle margin before start.
func (s dirStatus) settledBefore(start time.Time) bool {
	margin := settleMargin
	if s.ctime.Nsec != 0 {
		margin = settleMarginFracNs
	}
	return time.Unix(s.ctime.Unix()).Add(margin).Before(start)
}

// verified records the thread directory name (identity id) that
// PrepareThread has just verified, in a verification that started at
// start. The record is settled only when the directory is still that
// directory and it last changed more than its settle margin before start:
// then any later change shows in its status.
func (rt *Runtime) verified(name string, id fileID, start time.Time) verifiedThread {
	v := verifiedThread{id: id}
	dir, _, ok := status(rt.dir, name)
	if !ok || (fileID{dir.dev, dir.ino}) != id {
		return v
	}
	scripts, _, ok := status(rt.dir, name+"/"+ident.ScriptsDirName)
	if !ok {
		return v
	}
	v.dir, v.scripts = dir, scripts.checked()
	v.settled = dir.settledBefore(start)
	return v
}

// rememberLocked records v as what PrepareThread verified for the thread
// directory name, closing what an earlier record held, and holds the
// directory open when v is settled (only then does the short check use
// it). rt.mu must be held.
func (rt *Runtime) rememberLocked(name string, v verifiedThread) {
	if old := rt.threads[name]; old.held != nil {
		old.held.Close()
		rt.held = slices.DeleteFunc(rt.held, func(n string) bool { return n == name })
	}
	if v.settled {
		v.held = rt.holdLocked(name, v.id)
	}
	rt.threads[name] = v
}

// holdLocked opens the thread directory name, if it is still the
// directory id, as the most recently held one, and closes the least
// recently held beyond MaxHeldThreads. rt.mu must be held.
func (rt *Runtime) holdLocked(name string, id fileID) *os.Root {
	r, err := rt.dir.OpenRoot(name)
	if err != nil {
		return nil
	}
	if fi, err := r.Stat("."); err != nil || idOf(fi) != id {
		r.Close()
		return nil
	}
	rt.held = append(rt.held, name)
	if len(rt.held) > MaxHeldThreads {
		oldest := rt.held[0]
		rt.held = slices.Delete(rt.held, 0, 1)
		v := rt.threads[oldest]
		v.held.Close()
		v.held = nil
		rt.threads[oldest] = v
	}
	return r
}

// stillVerified reports whether the thread directory name and its scripts/
// are exactly as PrepareThread last verified them (two lstats), so
// checking them again would find what it found then. A removed, replaced,
// re-moded or re-owned directory, or one whose entries changed, is
// verified in full. The name is looked up first: a held directory is used
// only while the name still leads to it (same identity and change time).
func (rt *Runtime) stillVerified(name string) bool {
	v, ok := rt.threads[name]
	if !ok || !v.settled {
		return false
	}
	dir, _, ok := status(rt.dir, name)
	if !ok || dir != v.dir {
		return false
	}
	if v.held == nil {
		scripts, _, ok := status(rt.dir, name+"/"+ident.ScriptsDirName)
		return ok && scripts.checked() == v.scripts
	}
	scripts, _, ok := status(v.held, ident.ScriptsDirName)
	return ok && scripts.checked() == v.scripts
}
