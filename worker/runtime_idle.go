//go:build linux

package worker

import (
	"errors"
	"io/fs"
	"slices"
	"time"

	"hpatch-router/ident"
	"hpatch-router/worker/snapshot"
)

// A thread directory is removed while the router runs once it holds no
// live retained script and has been idle for the scripts' lifetime: no
// PrepareThread since, so no request of the thread reached the router
// (every request prepares its thread's runtime) and every script retained
// in it has expired. The sweep runs every lifetime/sweepsPerLifetime, so
// an idle directory goes at most that long after its time.
const sweepsPerLifetime = 12

// WithThreadLifetime sets how long a thread directory may stay idle
// before the sweep removes it (default retain.DefaultTTL, the retained
// scripts' lifetime); zero or less never sweeps.
func WithThreadLifetime(d time.Duration) Option {
	return func(c *runtimeConfig) { c.lifetime = d }
}

// scheduleSweepLocked arms the next idle sweep. rt.mu must be held (or rt
// not yet shared).
func (rt *Runtime) scheduleSweepLocked() {
	if rt.lifetime <= 0 || rt.closed {
		return
	}
	every := rt.lifetime / sweepsPerLifetime
	if rt.sweep == nil {
		rt.sweep = rt.afterFunc(every, rt.sweepIdle)
		return
	}
	rt.sweep.Reset(every)
}

// sweepIdle removes the idle thread directories (removeIdleLocked), one
// at a time under the lock, so a request preparing its thread waits for
// one removal at most, never for the whole sweep; then it arms the next
// sweep.
func (rt *Runtime) sweepIdle() {
	rt.mu.Lock()
	var idle []string
	for name, v := range rt.threads {
		if rt.idleLocked(v) {
			idle = append(idle, name)
		}
	}
	rt.mu.Unlock()
	removed := 0
	for _, name := range idle {
		rt.mu.Lock()
		if v, ok := rt.threads[name]; ok && !rt.closed && rt.idleLocked(v) && rt.removeIdleLocked(name, v) {
			removed++
		}
		rt.mu.Unlock()
	}
	if removed > 0 {
		rt.log.Info("idle thread directories removed", "count", removed, "idle_for", rt.lifetime)
	}
	rt.mu.Lock()
	rt.scheduleSweepLocked()
	rt.mu.Unlock()
}

// idleLocked reports whether the thread v records has not been prepared
// for the lifetime. rt.mu must be held.
func (rt *Runtime) idleLocked(v verifiedThread) bool {
	return rt.now().Sub(v.used) >= rt.lifetime
}

// removeIdleLocked removes the thread directory name, idle since v.used,
// when it is still the directory PrepareThread verified and links to this
// router's launcher, and its scripts/ is empty: scripts/, then .runtime,
// then the directory, each only if it is what it should be (an entry
// created meanwhile keeps the directory, and the next sweep looks again).
// A directory that is gone, replaced or taken over by another router is
// only forgotten. It reports whether it removed the directory. rt.mu must
// be held.
func (rt *Runtime) removeIdleLocked(name string, v verifiedThread) bool {
	fi, err := rt.dir.Lstat(name)
	if err != nil || idOf(fi) != v.id {
		rt.forgetLocked(name, v)
		return false
	}
	link := name + "/" + ident.RuntimeLink
	if got, err := rt.dir.Readlink(link); err != nil || got != snapshot.LinkTarget(rt.digest) {
		rt.forgetLocked(name, v)
		return false
	}
	if err := rt.dir.Remove(name + "/" + ident.ScriptsDirName); err != nil && !errors.Is(err, fs.ErrNotExist) {
		rt.log.Debug("idle thread directory kept: it holds retained scripts", "entry", name, "err", err)
		return false
	}
	if err := rt.dir.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
		rt.log.Warn("cannot remove an idle thread directory", "entry", name, "err", err)
		return false
	}
	if err := rt.dir.Remove(name); err != nil {
		rt.log.Warn("cannot remove an idle thread directory", "entry", name, "err", err)
		return false
	}
	rt.forgetLocked(name, v)
	rt.log.Debug("idle thread directory removed", "entry", name, "idle_since", v.used)
	return true
}

// forgetLocked drops the record of the thread directory name and closes
// what it held. rt.mu must be held.
func (rt *Runtime) forgetLocked(name string, v verifiedThread) {
	if v.held != nil {
		v.held.Close()
		rt.held = slices.DeleteFunc(rt.held, func(n string) bool { return n == name })
	}
	delete(rt.threads, name)
}

// touchLocked records that the thread directory name was just prepared:
// its idle time starts again. rt.mu must be held.
func (rt *Runtime) touchLocked(name string) {
	if v, ok := rt.threads[name]; ok {
		v.used = rt.now()
		rt.threads[name] = v
	}
}
