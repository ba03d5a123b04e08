//go:build linux

package worker

import (
	"fmt"
	"os"
	"syscall"
)

// ensureRootLocked makes the runtime root again when it is gone or is no
// longer the directory the runtime opened: logind removes
// $XDG_RUNTIME_DIR at the last logout of a user without linger, and tmp
// cleaners prune the fallback in the temp dir, while the router runs.
// Without this every shell call of every thread would fail until a
// restart. The root is made and checked as at startup (prepareRoot), its
// lock taken again (the old one locked a file that is gone), the
// snapshot and launcher written again, and every thread record dropped:
// each thread's directory is made again by the PrepareThread that needs
// it, which reports it created (the router then restores its scripts). It
// costs one lstat when the root is still the one opened. rt.mu must be
// held.
func (rt *Runtime) ensureRootLocked() error {
	var st syscall.Stat_t // not os.Lstat: no FileInfo to allocate on every request
	if err := syscall.Lstat(rt.root, &st); err == nil && (fileID{uint64(st.Dev), st.Ino}) == rt.rootID {
		return nil
	}
	rt.log.Warn("the runtime root is gone or was replaced while the router ran; making it again", "root", rt.root)
	if err := prepareRoot(rt.root); err != nil {
		return err
	}
	if rt.lock != nil {
		rt.lock.Close()
		rt.lock = nil
		lock, err := lockRoot(rt.root, rt.addr)
		if err != nil {
			return err
		}
		rt.lock = lock
	}
	dir, err := os.OpenRoot(rt.root)
	if err != nil {
		return fmt.Errorf("open runtime root: %w", err)
	}
	fi, err := dir.Stat(".")
	if err != nil {
		dir.Close()
		return fmt.Errorf("open runtime root: %w", err)
	}
	for name, v := range rt.threads {
		if v.held != nil {
			v.held.Close()
		}
		delete(rt.threads, name)
	}
	rt.held = rt.held[:0]
	rt.dir.Close()
	rt.dir, rt.rootID = dir, idOf(fi)
	if err := rt.createSnapshot(); err != nil {
		return err
	}
	rt.log.Info("runtime root made again", "root", rt.root, "snapshot", rt.SnapshotDir())
	return nil
}
