package retain

import "os"

// followRootLocked reopens the runtime root when its path leads to
// another directory than the one the Store holds open: the worker runtime
// recreates a root deleted while the router runs (logind removes
// $XDG_RUNTIME_DIR at the last logout without linger; tmp cleaners prune
// the fallback), and the store's handle still names the deleted one, so
// no thread could be reached until a restart. The new root must pass the
// same checks as any storage directory; the records of the threads in
// the old root are dropped, and each thread is opened anew when it is
// next used. A missing root is left to the runtime to recreate. s.mu
// must be held.
func (s *Store) followRootLocked() {
	fi, err := os.Lstat(s.rootPath)
	if err != nil || os.SameFile(fi, s.rootInfo) {
		return
	}
	if err := checkDir(fi, "runtime root "+s.rootPath, s.uid); err != nil {
		s.log.Warn("the runtime root was replaced by a directory the store refuses", "err", err)
		return
	}
	r, err := os.OpenRoot(s.rootPath)
	if err != nil {
		s.log.Warn("cannot open the recreated runtime root", "root", s.rootPath, "err", err)
		return
	}
	info, err := r.Stat(".")
	if err != nil || !os.SameFile(info, fi) { // replaced again meanwhile
		r.Close()
		return
	}
	// Every thread directory was in the old root: what this store wrote
	// there is gone, and the records of it with their expiry timers.
	for name, ts := range s.threads {
		for _, a := range ts.owned {
			a.timer.Stop()
		}
		s.closeLocked(ts)
		delete(s.threads, name)
	}
	s.runtime.Close()
	s.runtime, s.rootInfo = r, info
	s.log.Info("retained scripts follow the recreated runtime root", "root", s.rootPath)
}
