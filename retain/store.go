package retain

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"hpatch-router/ident"
	"hpatch-router/scriptref"
)

// ErrClosed is returned by every operation on a closed Store.
var ErrClosed = errors.New("the retained-script store is closed")

// DefaultTTL is how long a retained script lives.
const DefaultTTL = time.Hour

// Timer is a cancellable expiry callback; *time.Timer satisfies it.
type Timer interface{ Stop() bool }

// Option configures a Store.
type Option func(*Store)

// TTL sets how long a retained script lives before it is removed.
func TTL(d time.Duration) Option { return func(s *Store) { s.ttl = d } }

// Logger sets the structured logger. Script bodies are never logged.
func Logger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// Clock replaces time.Now for the age of staged changes (a test seam).
func Clock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// AfterFunc replaces time.AfterFunc for expiry callbacks (a test seam).
func AfterFunc(f func(d time.Duration, fn func()) Timer) Option {
	return func(s *Store) { s.afterFunc = f }
}

// Store keeps retained `@shell/<id>` scripts below each thread's runtime
// directory, `<root>/hpatch-<thread>/scripts/`. Every file operation goes
// through an *os.Root opened on the runtime root, the thread directory and
// its scripts directory, so no name can leave that storage. It satisfies
// the router's Scripts interface.
type Store struct {
	runtime   *os.Root
	rootPath  string      // the runtime root's path, to follow a recreated root (followRootLocked)
	rootInfo  fs.FileInfo // the identity of the directory runtime holds
	uid       int         // the current user, who must own the storage
	ttl       time.Duration
	log       *slog.Logger
	afterFunc func(time.Duration, func()) Timer
	now       func() time.Time

	mu      sync.Mutex
	closed  bool
	threads map[string]*threadStore
	open    []*threadStore // threads whose directories stay open, least recently used first
	idle    Timer          // the next closeIdle sweep; nil while no thread is open
	// versions: per thread, the script versions beyond its files
	// (versions.go): staged changes and scripts of unknown version.
	versions map[string]*threadVersions
}

// threadStore is one thread's storage and the artifacts this Store wrote
// there. dir and scripts are open during an operation (threadLocked or
// reopen until releaseLocked) and, for a recently used thread, between
// operations (keepOpenLocked); dirInfo and scriptsInfo identify the
// directories first opened.
type threadStore struct {
	thread         string
	dir            *os.Root
	dirInfo        fs.FileInfo
	scripts        *os.Root
	scriptsInfo    fs.FileInfo
	createdScripts bool
	used           bool // used since the last closeIdle sweep
	owned          map[string]*artifact
}

// artifact is a script this Store wrote: the file it put in place (for
// os.SameFile), its content digest and its expiry timer. Inode numbers are
// reused, so removal checks the digest as well as the identity.
type artifact struct {
	file  fs.FileInfo
	sum   [sha256.Size]byte
	timer Timer
}

// NewStore opens the runtime root directory (which must exist). The store
// creates no thread directory: the worker runtime prepares those.
func NewStore(root string, opts ...Option) (*Store, error) {
	rt, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open runtime root: %w", err)
	}
	info, err := rt.Stat(".")
	if err != nil {
		rt.Close()
		return nil, fmt.Errorf("open runtime root: %w", err)
	}
	s := &Store{
		runtime:  rt,
		rootPath: root,
		rootInfo: info,
		uid:      os.Getuid(),
		ttl:      DefaultTTL,
		log:      slog.Default(),
		afterFunc: func(d time.Duration, fn func()) Timer {
			return time.AfterFunc(d, fn)
		},
		now:      time.Now,
		threads:  map[string]*threadStore{},
		versions: map[string]*threadVersions{},
	}
	for _, o := range opts {
		o(s)
	}
	if s.ttl <= 0 {
		rt.Close()
		return nil, fmt.Errorf("TTL must be positive, got %v", s.ttl)
	}
	return s, nil
}

// Retain stores content, the complete shell input as the model wrote it,
// as artifact id of thread now and returns "@shell/<id>". Any error means
// retained:false and nothing was written: an unsafe thread or artifact id,
// missing or unsafe thread storage, an existing artifact of that name
// (never overwritten), content that is not UTF-8, too large, or itself a
// sole `#!script=` reference. The router stages a retention instead
// (Stage) and commits it when the call ran.
func (s *Store) Retain(ctx context.Context, thread, id, content string) (string, error) {
	if err := checkRetain(ctx, thread, id, content); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retainLocked(thread, id, []byte(content), s.ttl)
}

// checkRetain is what makes content, as artifact id of thread, ineligible
// for retention before any storage is looked at.
func checkRetain(ctx context.Context, thread, id, content string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkThread(thread); err != nil {
		return err
	}
	if err := ident.Artifact(id); err != nil {
		return err
	}
	switch {
	case len(content) > MaxScriptBytes:
		return fmt.Errorf("script is %d bytes; at most %d are retained", len(content), MaxScriptBytes)
	case !utf8.ValidString(content):
		return errors.New("script is not valid UTF-8")
	}
	if _, ok := scriptref.ScriptReference(content); ok {
		return errors.New("a sole #!script= reference is not retained; retain the resolved body")
	}
	return nil
}

// retainLocked writes content as artifact id of thread, expiring after
// ttl; s.mu is held.
func (s *Store) retainLocked(thread, id string, content []byte, ttl time.Duration) (string, error) {
	ts, err := s.threadLocked(thread, true)
	if err != nil {
		return "", err
	}
	defer s.releaseLocked(ts)
	ref := scriptref.FormatRef(id)
	fi, err := createExclusive(ts.scripts, id, content)
	if errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("%s already exists in this thread; not overwriting it: %w", ref, fs.ErrExist)
	}
	if err != nil {
		return "", fmt.Errorf("write %s: %w", ref, err)
	}
	a := &artifact{file: fi, sum: sha256.Sum256(content)}
	a.timer = s.afterFunc(ttl, func() { s.expire(ts, id, a) })
	ts.owned[id] = a
	s.log.Info("retained script", "thread", thread, "ref", ref, "bytes", len(content))
	return ref, nil
}

// Resolve returns the current content of reference ref ("@shell/<id>") in
// thread: its newest staged version (Stage, StageEdit), or else the file. The reference must be strict, name a regular UTF-8 file in the
// thread's scripts directory, and that content must not itself be a sole
// `#!script=` reference (reruns resolve one level; self references and
// chains are rejected as cyclic).
func (s *Store) Resolve(ctx context.Context, thread, ref string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := checkThread(thread); err != nil {
		return "", err
	}
	id, err := scriptref.ParseRef(ref)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", ErrClosed
	}
	data, err := s.currentLocked(thread, id, ref)
	if err != nil {
		return "", err
	}
	if inner, ok := scriptref.ScriptReference(string(data)); ok {
		if inner == id {
			return "", fmt.Errorf("%s is cyclic: it reruns itself", ref)
		}
		return "", fmt.Errorf("%s is itself a rerun of %s; reruns do not chain, rerun that script directly", ref, scriptref.FormatRef(inner))
	}
	return string(data), nil
}

// currentLocked returns the newest staged version of artifact id (named
// ref) of thread, or else its content on disk; s.mu is held.
func (s *Store) currentLocked(thread, id, ref string) ([]byte, error) {
	if c, v := s.stagedLocked(thread, id); c != nil {
		return v, nil
	}
	if err := s.unknownLocked(thread, id); err != nil {
		return nil, err
	}
	ts, err := s.threadLocked(thread, false)
	if err != nil {
		return nil, threadMissing(err, ref)
	}
	defer s.releaseLocked(ts)
	return ReadScript(ts.scripts, id)
}

// Close cancels every expiry callback and removes the scripts this Store
// wrote (and scripts/ itself when the Store created it and it is empty),
// but only while the thread and scripts directories are still the ones it
// opened; storage replaced by anything else, such as a symlink, is left
// alone. Removal goes through the Roots opened earlier, never through a
// path. Later calls fail.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	clear(s.versions)
	if s.idle != nil {
		s.idle.Stop()
	}
	for _, ts := range s.open {
		ts.close() // reopened below with the full checks
	}
	s.open = nil
	var first error
	for name, ts := range s.threads {
		for _, a := range ts.owned {
			a.timer.Stop()
		}
		if err := ts.reopen(s.runtime, s.uid); err != nil {
			s.log.Warn("thread storage changed; leaving it in place", "thread", ts.thread, "err", err)
		} else if err := s.cleanupLocked(ts); err != nil && first == nil {
			first = err
		}
		ts.close()
		delete(s.threads, name)
	}
	s.runtime.Close()
	return first
}

// cleanupLocked removes ts's owned scripts; ts is open (reopen).
func (s *Store) cleanupLocked(ts *threadStore) error {
	var first error
	for id, a := range ts.owned {
		if err := ts.removeOwned(id, a); err != nil {
			s.log.Warn("remove retained script", "thread", ts.thread, "ref", scriptref.FormatRef(id), "err", err)
			if first == nil {
				first = fmt.Errorf("remove %s: %w", scriptref.FormatRef(id), err)
			}
		}
		delete(ts.owned, id)
	}
	if ts.createdScripts {
		if err := ts.dir.Remove(ident.ScriptsDirName); err != nil {
			s.log.Debug("scripts directory kept", "thread", ts.thread, "err", err)
		}
	}
	return first
}

// expire removes artifact id when its timer fires, if it is still the file
// this Store wrote and the storage is still the directory it opened.
func (s *Store) expire(ts *threadStore, id string, a *artifact) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || ts.owned[id] != a {
		return
	}
	delete(ts.owned, id)
	if s.threads[ts.thread] != ts {
		return
	}
	defer s.releaseLocked(ts)
	if err := s.openLocked(ts); err != nil {
		s.log.Warn("thread storage changed; not expiring", "thread", ts.thread, "ref", scriptref.FormatRef(id), "err", err)
		return
	}
	if err := ts.removeOwned(id, a); err != nil {
		s.log.Warn("expire retained script", "thread", ts.thread, "ref", scriptref.FormatRef(id), "err", err)
		return
	}
	s.log.Info("retained script expired", "thread", ts.thread, "ref", scriptref.FormatRef(id))
}
