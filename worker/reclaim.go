//go:build linux

package worker

import (
	"io"
	"os"
	"strings"
	"syscall"

	"hpatch-router/ident"
	"hpatch-router/worker/snapshot"
)

// reclaim removes runtime entries a previous router of this user left
// behind and that it can prove were a router's: snapshot directories owned
// by us whose manifest matches their name and whose owning router process
// is gone (its launcher no longer serves anyone), then thread directories owned
// by us whose .runtime link names a snapshot that no longer exists.
// Anything it cannot prove is left alone.
func (rt *Runtime) reclaim() {
	entries, err := os.ReadDir(rt.root)
	if err != nil {
		rt.log.Warn("runtime reclaim: cannot list root", "root", rt.root, "err", err)
		return
	}
	var threads []string
	for _, e := range entries {
		name := e.Name()
		if snapshot.DigestOf(name) != "" {
			if rt.staleSnapshot(name) {
				rt.remove(name, "stale snapshot")
			}
			continue
		}
		if strings.HasPrefix(name, ident.ThreadDirPrefix) {
			threads = append(threads, name)
		}
	}
	for _, name := range threads {
		if rt.orphanThread(name) {
			rt.remove(name, "orphaned thread directory")
		}
	}
}

func (rt *Runtime) ours(name string) bool {
	fi, err := rt.dir.Lstat(name)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == rt.uid
}

func (rt *Runtime) staleSnapshot(name string) bool {
	if !rt.ours(name) {
		return false
	}
	f, err := rt.dir.Open(name + "/" + snapshot.ManifestName)
	if err != nil {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	f.Close()
	if err != nil || snapshot.Digest(data) != snapshot.DigestOf(name) {
		return false // not provably ours
	}
	m, err := snapshot.Parse(data)
	if err != nil {
		return false
	}
	return !RouterRuns(m) // while the owning router still runs, it is in use
}

// RouterRuns reports whether the router process a snapshot manifest
// names still runs: its pid is alive with the start time it recorded (a
// reused pid has another).
func RouterRuns(m snapshot.Manifest) bool {
	start, err := procStart(m.PID)
	return err == nil && start == m.Start
}

func (rt *Runtime) orphanThread(name string) bool {
	if !rt.ours(name) {
		return false
	}
	target, err := rt.dir.Readlink(name + "/" + ident.RuntimeLink)
	if err != nil {
		return false
	}
	digest := snapshot.DigestOfLink(target)
	if digest == "" {
		return false
	}
	_, err = rt.dir.Lstat(snapshot.DirName(digest))
	return os.IsNotExist(err)
}

func (rt *Runtime) remove(name, why string) {
	if err := rt.dir.RemoveAll(name); err != nil {
		rt.log.Warn("runtime reclaim failed", "entry", name, "reason", why, "err", err)
		return
	}
	rt.log.Info("runtime reclaimed", "entry", name, "reason", why)
}
