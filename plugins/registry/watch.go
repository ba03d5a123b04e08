package registry

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Registry holds the declared tools in service and reloads them when the
// tools directory changes (Watch). A new set replaces the old one whole
// and atomically, and only when it is valid: an invalid one leaves the
// previous set in service and its problems in Status, so a half-written
// file never takes a tool away. Safe for concurrent use.
type Registry struct {
	dir  string
	opts LoadOptions
	log  *slog.Logger
	// onLoad, when set, hears every load's outcome ("ok" or "invalid").
	onLoad func(outcome string, probs []Problem)

	cur atomic.Pointer[Set]
	mu  sync.Mutex
	st  Status
}

// Status is what the last load said.
type Status struct {
	Dir string
	// Problems of the last load; empty when the set in service is it.
	Problems []Problem
	// Loaded is when the set in service was loaded, Checked the last load.
	Loaded, Checked time.Time
	// Reloads counts loads after the first, by outcome.
	OK, Invalid uint64
}

// Open loads dir once. With problems the registry starts with no declared
// tools (there is no previous set) and logs each problem.
func Open(dir string, opts LoadOptions, log *slog.Logger, onLoad func(outcome string, probs []Problem)) *Registry {
	r := &Registry{dir: dir, opts: opts, log: log, onLoad: onLoad}
	r.cur.Store(&Set{Dir: dir, byName: map[string]*Tool{}})
	r.st.Dir = dir
	r.Reload()
	return r
}

// Current is the set in service (nil for a nil Registry: no tools).
func (r *Registry) Current() *Set {
	if r == nil {
		return nil
	}
	return r.cur.Load()
}

// Status returns a copy of the last load's status.
func (r *Registry) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.st
	st.Problems = append([]Problem(nil), st.Problems...)
	return st
}

// Reload loads the directory and swaps the set in when it is valid; it
// reports whether it did.
func (r *Registry) Reload() bool {
	set, probs := Load(r.dir, r.opts)
	now := time.Now()
	r.mu.Lock()
	first := r.st.Checked.IsZero()
	r.st.Checked, r.st.Problems = now, probs
	outcome := "ok"
	if set != nil {
		r.cur.Store(set)
		r.st.Loaded = now
	} else {
		outcome = "invalid"
	}
	switch {
	case first:
	case set != nil:
		r.st.OK++
	default:
		r.st.Invalid++
	}
	r.mu.Unlock()
	for _, p := range probs {
		r.log.Error("tool file problem; the previous tools stay in service", "problem", p.String())
	}
	if set != nil && !first {
		r.log.Info("tools reloaded", "dir", r.dir, "tools", set.Len())
	}
	if r.onLoad != nil {
		r.onLoad(outcome, probs)
	}
	return set != nil
}

// Watch reloads the set when something in the tools directory changes,
// debounced (an editor's write-rename-chmod is one change), until ctx
// ends; the returned channel closes then. It watches the directory and
// its nearest existing ancestor, so a directory created (or removed)
// later is noticed too. The watches are in place when it returns.
func (r *Registry) Watch(ctx context.Context, debounce time.Duration) (<-chan struct{}, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	r.watchPaths(w)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer w.Close()
		r.follow(ctx, w, debounce)
	}()
	return done, nil
}

// follow is Watch's loop.
func (r *Registry) follow(ctx context.Context, w *fsnotify.Watcher, debounce time.Duration) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if r.concerns(ev.Name) {
				r.watchPaths(w)
				timer.Reset(debounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			r.log.Warn("watching the tools directory", "err", err)
		case <-timer.C:
			r.Reload()
		}
	}
}

// concerns reports an event for the directory, an entry in it or one of
// its ancestors (a directory on the way to it was created or removed).
func (r *Registry) concerns(name string) bool {
	name = filepath.Clean(name)
	return name == r.dir || filepath.Dir(name) == r.dir || strings.HasPrefix(r.dir, name+string(filepath.Separator))
}

// watchPaths watches the directory when it exists and its nearest
// existing ancestor (adding a watched path again changes nothing).
func (r *Registry) watchPaths(w *fsnotify.Watcher) {
	if err := w.Add(r.dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.log.Warn("cannot watch the tools directory", "dir", r.dir, "err", err)
	}
	for p := filepath.Dir(r.dir); ; p = filepath.Dir(p) {
		if err := w.Add(p); err == nil || filepath.Dir(p) == p {
			return
		}
	}
}
