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

// sweepIdle removes the idle thread directories (removeIdleLocked) and
// arms the next sweep.
func (rt *Runtime) sweepIdle() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		return
	}
	now := rt.now()
	for name, v := range rt.threads {
		if now.Sub(v.used) >= rt.lifetime {
			rt.removeIdleLocked(name, v)
		}
	}
	rt.scheduleSweepLocked()
}

// removeIdleLocked removes the thread directory name, idle since v.used,
// when it is still the directory PrepareThread verified and links to this
// router's launcher, and its scripts/ is empty: scripts/, then .runtime,
// then the directory, each only if it is what it should be (an entry
// created meanwhile keeps the directory, and the next sweep looks again).
// A directory that is gone, replaced or taken over by another router is
// only forgotten. rt.mu must be held.
func (rt *Runtime) removeIdleLocked(name string, v verifiedThread) {
	fi, err := rt.dir.Lstat(name)
	if err != nil || idOf(fi) != v.id {
		rt.forgetLocked(name, v)
		return
	}
	link := name + "/" + ident.RuntimeLink
	if got, err := rt.dir.Readlink(link); err != nil || got != snapshot.LinkTarget(rt.digest) {
		rt.forgetLocked(name, v)
		return
	}
	if err := rt.dir.Remove(name + "/" + snapshot.ScriptsDirName); err != nil && !errors.Is(err, fs.ErrNotExist) {
		rt.log.Debug("idle thread directory kept: it holds retained scripts", "entry", name, "err", err)
		return
	}
	if err := rt.dir.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
		rt.log.Warn("cannot remove an idle thread directory", "entry", name, "err", err)
		return
	}
	if err := rt.dir.Remove(name); err != nil {
		rt.log.Warn("cannot remove an idle thread directory", "entry", name, "err", err)
		return
	}
	rt.forgetLocked(name, v)
	rt.log.Info("idle thread directory removed", "entry", name, "idle_since", v.used)
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
