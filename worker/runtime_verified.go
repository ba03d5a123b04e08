//go:build linux

package worker

import (
	"syscall"
	"time"

	"hpatch-router/worker/snapshot"
)

// settleMargin is how much older than the start of a verification a thread
// directory's change time must be before PrepareThread trusts that
// verification later. File system timestamps are coarse (a clock tick on
// local file systems, up to 2 s on the coarsest), so a change made in the
// same tick as the last recorded one can leave the change time as it was;
// a change made after a verification that started more than a margin
// after the recorded change time always gives the directory a later one.
const settleMargin = 2 * time.Second

// verifiedThread is what PrepareThread verified for a thread directory:
// the identity of the directory, and the status of it and of its scripts/
// right after verification. The two cover everything PrepareThread checks:
// each directory's type, owner and mode, and the thread directory's entries
// (scripts/ and .runtime), since creating, removing, renaming or replacing
// an entry changes the directory's ctime, which nobody can set back (it
// follows the system clock).
type verifiedThread struct {
	id      fileID
	dir     dirStatus
	scripts dirStatus
	settled bool // both were taken long enough after their last change to compare them
}

// dirStatus is the part of a directory's status that changes whenever the
// directory or its list of entries does.
type dirStatus struct {
	dev, ino, nlink uint64
	mode, uid, gid  uint32
	ctime, mtime    syscall.Timespec
}

// status returns the status of name below the runtime root, without
// following a final link.
func (rt *Runtime) status(name string) (dirStatus, bool) {
	fi, err := rt.dir.Lstat(name)
	if err != nil {
		return dirStatus{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirStatus{}, false
	}
	return dirStatus{
		dev: uint64(st.Dev), ino: st.Ino, nlink: uint64(st.Nlink),
		mode: st.Mode, uid: st.Uid, gid: st.Gid,
		ctime: st.Ctim, mtime: st.Mtim,
	}, true
}

// settledBefore reports whether the last change of the directory was more
// than settleMargin before start.
func (s dirStatus) settledBefore(start time.Time) bool {
	return time.Unix(s.ctime.Unix()).Add(settleMargin).Before(start)
}

// verified records the thread directory name (identity id) that
// PrepareThread has just verified, in a verification that started at
// start. The record is settled only when the directory is still that
// directory and it and its scripts/ last changed more than settleMargin
// before start: then any later change shows in their status.
func (rt *Runtime) verified(name string, id fileID, start time.Time) verifiedThread {
	v := verifiedThread{id: id}
	dir, ok := rt.status(name)
	if !ok || (fileID{dir.dev, dir.ino}) != id {
		return v
	}
	scripts, ok := rt.status(name + "/" + snapshot.ScriptsDirName)
	if !ok {
		return v
	}
	v.dir, v.scripts = dir, scripts
	v.settled = dir.settledBefore(start) && scripts.settledBefore(start)
	return v
}

// stillVerified reports whether the thread directory name and its scripts/
// are exactly as PrepareThread last verified them (two lstats), so
// checking them again would find what it found then. A removed, replaced,
// re-moded or re-owned directory, or one whose entries changed, is
// verified in full.
func (rt *Runtime) stillVerified(name string) bool {
	v, ok := rt.threads[name]
	if !ok || !v.settled {
		return false
	}
	dir, ok := rt.status(name)
	if !ok || dir != v.dir {
		return false
	}
	scripts, ok := rt.status(name + "/" + snapshot.ScriptsDirName)
	return ok && scripts == v.scripts
}
