//go:build linux

package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"hpatch-router/ident"
	"hpatch-router/retain"
	"hpatch-router/worker/snapshot"
)

// Runtime is the router's side of the runtime directory: one snapshot
// directory holding the launcher (a link to the router executable) and the
// per-thread directories whose .runtime link names it. It implements
// router.Runtime. All methods are safe for concurrent use.
type Runtime struct {
	root     string
	dir      *os.Root
	rootID   fileID // the directory dir holds: a root deleted and made again is another (ensureRootLocked)
	log      *slog.Logger
	uid      int
	digest   string
	manifest snapshot.Manifest
	snapID   fileID
	addr     string             // the listen address the root's lock names ("": no lock)
	lock     *snapshot.RootLock // held while the runtime is open, when addr is set

	now       func() time.Time // when a verification starts and a thread was last used (a test seam)
	lifetime  time.Duration    // how long a thread directory may stay idle (WithThreadLifetime)
	afterFunc func(time.Duration, func()) sweepTimer

	mu      sync.Mutex
	closed  bool
	threads map[string]verifiedThread // thread dir name → what PrepareThread last verified there
	held    []string                  // thread dir names whose record holds the directory, least recent first
	sweep   sweepTimer                // the next idle sweep (sweepIdle); nil until armed
}

// sweepTimer is the idle sweep's timer; *time.Timer satisfies it.
type sweepTimer interface {
	Stop() bool
	Reset(time.Duration) bool
}

// fileID identifies a directory we created, so Close removes only that
// directory and not one that replaced it.
type fileID struct{ dev, ino uint64 }

// Option configures NewRuntime.
type Option func(*runtimeConfig)

type runtimeConfig struct {
	exe       string
	addr      string
	log       *slog.Logger
	now       func() time.Time
	lifetime  time.Duration
	afterFunc func(time.Duration, func()) sweepTimer
}

// WithExecutable names the launcher target instead of the running
// executable (tests use it to point at a freshly built router binary).
func WithExecutable(path string) Option { return func(c *runtimeConfig) { c.exe = path } }

// WithRootLock makes NewRuntime take the runtime root's lock
// (snapshot.LockRoot) for a router listening on addr before it touches
// anything in the root, and Close release it: a second router of the
// user on the same root then refuses to start, naming the first, instead
// of reclaiming and, at its own shutdown, removing what the first serves.
// serve sets it; tests that play several routers on one root do not.
func WithRootLock(addr string) Option { return func(c *runtimeConfig) { c.addr = addr } }

// WithLogger sets the logger for reclamation and cleanup events.
func WithLogger(l *slog.Logger) Option { return func(c *runtimeConfig) { c.log = l } }

// NewRuntime creates the router-owned snapshot directory
// <root>/hpatch-snapshot-<digest>/ (0700) with its manifest and launcher
// link, after reclaiming stale snapshot and thread entries that a previous
// router of this user left behind. root must be absolute; it is created
// (0700) when missing, and refused (snapshot.CheckRoot) when it is not a
// directory of this user that group and others cannot write — another
// user may have created it first. The router executable must pass
// snapshot.ExecutableProblem, as the helper will check it before every
// exec. Call Close on shutdown.
func NewRuntime(root string, opts ...Option) (*Runtime, error) {
	cfg := runtimeConfig{log: slog.Default(), now: time.Now, lifetime: retain.DefaultTTL,
		afterFunc: func(d time.Duration, f func()) sweepTimer { return time.AfterFunc(d, f) }}
	for _, o := range opts {
		o(&cfg)
	}
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("runtime root %q is not absolute; pass an absolute --runtime-dir or %s", root, snapshot.RootEnv)
	}
	root = filepath.Clean(root)
	if err := prepareRoot(root); err != nil {
		return nil, err
	}
	m, err := describeExecutable(cfg.exe)
	if err != nil {
		return nil, err
	}
	lock, err := lockRoot(root, cfg.addr)
	if err != nil {
		return nil, err
	}
	dir, err := os.OpenRoot(root)
	if err != nil {
		closeLock(lock)
		return nil, fmt.Errorf("open runtime root: %w", err)
	}
	fi, err := dir.Stat(".")
	if err != nil {
		dir.Close()
		closeLock(lock)
		return nil, fmt.Errorf("open runtime root: %w", err)
	}
	rt := &Runtime{root: root, dir: dir, rootID: idOf(fi), log: cfg.log, uid: os.Getuid(), manifest: m, now: cfg.now,
		addr: cfg.addr, lock: lock,
		lifetime: cfg.lifetime, afterFunc: cfg.afterFunc, threads: map[string]verifiedThread{}}
	rt.reclaim()
	if err := rt.createSnapshot(); err != nil {
		dir.Close()
		closeLock(lock)
		return nil, err
	}
	rt.scheduleSweepLocked()
	return rt, nil
}

// prepareRoot checks root and creates it (0700) when it is missing. It
// checks before creating too: a missing root in another user's directory
// (an XDG_RUNTIME_DIR inherited through su or sudo) is refused, not
// created where that user could replace it, even by root.
func prepareRoot(root string) error {
	err := snapshot.CheckRoot(root, os.Getuid())
	var r *snapshot.Refusal
	if err == nil || !errors.As(err, &r) || r.Code != snapshot.ExitNotFound {
		return err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return fmt.Errorf("cannot create runtime root %s: %w; set %s to a directory of yours, for hpatch-router and Codex alike",
			root, err, snapshot.RootEnv)
	}
	return snapshot.CheckRoot(root, os.Getuid())
}

// Root is the runtime root directory.
func (rt *Runtime) Root() string { return rt.root }

// SnapshotDir is the absolute path of this router's snapshot directory.
func (rt *Runtime) SnapshotDir() string {
	return filepath.Join(rt.root, snapshot.DirName(rt.digest))
}

// describeExecutable builds the manifest of the launcher target: resolved
// path, content hash, file identity, and this process's pid and start time.
func describeExecutable(exe string) (snapshot.Manifest, error) {
	var m snapshot.Manifest
	var err error
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return m, fmt.Errorf("find the router executable: %w", err)
		}
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return m, fmt.Errorf("resolve the router executable: %w", err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return m, err
	}
	f, err := os.Open(exe)
	if err != nil {
		return m, fmt.Errorf("open the router executable: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return m, fmt.Errorf("hash the router executable: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		return m, err
	}
	st := fi.Sys().(*syscall.Stat_t)
	if p := snapshot.ExecutableProblem(st, os.Getuid(), nil); p != "" {
		return m, fmt.Errorf("the router executable %s %s, so the shell helper would refuse to run it", exe, p)
	}
	start, err := procStart(os.Getpid())
	if err != nil {
		return m, fmt.Errorf("read this process's start time: %w", err)
	}
	return snapshot.Manifest{
		Exe: exe, SHA256: hex.EncodeToString(h.Sum(nil)),
		Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size, MtimeNs: st.Mtim.Nano(),
		Owner: int(st.Uid), CtimeNs: st.Ctim.Nano(), PID: os.Getpid(), Start: start,
	}, nil
}

func (rt *Runtime) createSnapshot() error {
	data := rt.manifest.Encode()
	rt.digest = snapshot.Digest(data)
	name := snapshot.DirName(rt.digest)
	if err := rt.dir.Mkdir(name, 0o700); err != nil {
		return fmt.Errorf("create runtime snapshot %s: %w", rt.SnapshotDir(), err)
	}
	id, err := rt.privateDir(name)
	if err != nil {
		return err
	}
	rt.snapID = id
	f, err := rt.dir.OpenFile(name+"/"+snapshot.ManifestName, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("write snapshot manifest: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write snapshot manifest: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write snapshot manifest: %w", err)
	}
	if err := rt.dir.Symlink(rt.manifest.Exe, name+"/"+snapshot.LauncherName); err != nil {
		return fmt.Errorf("create launcher link: %w", err)
	}
	return nil
}

// privateDir makes a directory we just created 0700 regardless of umask
// and returns its identity.
func (rt *Runtime) privateDir(name string) (fileID, error) {
	if err := rt.dir.Chmod(name, 0o700); err != nil {
		return fileID{}, fmt.Errorf("chmod %s: %w", name, err)
	}
	fi, err := rt.dir.Lstat(name)
	if err != nil {
		return fileID{}, err
	}
	return idOf(fi), nil
}

func idOf(fi fs.FileInfo) fileID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}
	}
	return fileID{uint64(st.Dev), st.Ino}
}

// checkOwned refuses an entry that is not a directory of ours writable
// only by us.
func (rt *Runtime) checkOwned(name string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s exists and is not a directory; remove it", filepath.Join(rt.root, name))
	case !ok || int(st.Uid) != rt.uid:
		return fmt.Errorf("%s is owned by another user; remove it or choose another runtime dir", filepath.Join(rt.root, name))
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by group or others; remove it", filepath.Join(rt.root, name))
	}
	return nil
}

// PrepareThread creates (or verifies) <root>/hpatch-<thread>/ (0700) with
// scripts/ (0700) and the .runtime link to this router's launcher. It is
// idempotent; an existing link to another launcher is replaced atomically.
// It refuses an unsafe thread id before creating anything, and existing
// entries not owned by the current user or writable by group/others.
// A thread directory verified earlier and unchanged since (stillVerified)
// costs two lstats, and one more for the root (ensureRootLocked: a root
// deleted while the router runs is made again).
func (rt *Runtime) PrepareThread(ctx context.Context, thread string) error {
	_, err := rt.PrepareThreadCreated(ctx, thread)
	return err
}

// PrepareThreadCreated is PrepareThread, and also reports whether it
// created the thread directory: a new thread, or one whose directory was
// removed (alone, or with the root), whose retained scripts the router
// then restores from its journal.
func (rt *Runtime) PrepareThreadCreated(ctx context.Context, thread string) (bool, error) {
	if err := ident.Thread(thread); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		return false, errors.New("runtime is closed")
	}
	if err := rt.ensureRootLocked(); err != nil {
		return false, err
	}
	name := ident.ThreadDirName(thread)
	created := false
	if !rt.stillVerified(name) {
		var err error
		if created, err = rt.verifyLocked(name); err != nil {
			return false, err
		}
	}
	rt.touchLocked(name)
	return created, nil
}

// verifyLocked creates or verifies the thread directory name in full,
// records what it verified and reports whether it created the directory.
// rt.mu must be held.
func (rt *Runtime) verifyLocked(name string) (bool, error) {
	start := rt.now()
	id, created, err := rt.ensureDir(name)
	if err != nil {
		return false, err
	}
	if _, _, err := rt.ensureDir(name + "/" + ident.ScriptsDirName); err != nil {
		return false, err
	}
	if err := rt.ensureLink(name); err != nil {
		return false, err
	}
	rt.rememberLocked(name, rt.verified(name, id, start)) // the directory that serves the thread now
	return created, nil
}

// ensureDir creates the directory name (0700), or checks the one there,
// and reports whether it created it.
func (rt *Runtime) ensureDir(name string) (fileID, bool, error) {
	err := rt.dir.Mkdir(name, 0o700)
	if err == nil {
		id, err := rt.privateDir(name)
		return id, true, err
	}
	if !errors.Is(err, fs.ErrExist) {
		return fileID{}, false, fmt.Errorf("create %s: %w", filepath.Join(rt.root, name), err)
	}
	fi, err := rt.dir.Lstat(name)
	if err != nil {
		return fileID{}, false, err
	}
	if err := rt.checkOwned(name, fi); err != nil {
		return fileID{}, false, err
	}
	return idOf(fi), false, nil
}

func (rt *Runtime) ensureLink(threadDir string) error {
	link := threadDir + "/" + ident.RuntimeLink
	want := snapshot.LinkTarget(rt.digest)
	got, err := rt.dir.Readlink(link)
	if err == nil && got == want {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := rt.dir.Lstat(link); lerr == nil && fi.Mode()&fs.ModeSymlink == 0 {
			return fmt.Errorf("%s exists and is not a link; remove %s", filepath.Join(rt.root, link), filepath.Join(rt.root, threadDir))
		}
		return fmt.Errorf("read %s: %w", filepath.Join(rt.root, link), err)
	}
	// Create beside it and rename over: readers never see a missing link.
	tmp := threadDir + "/.runtime-new-" + strconv.Itoa(os.Getpid())
	_ = rt.dir.Remove(tmp)
	if err := rt.dir.Symlink(want, tmp); err != nil {
		return fmt.Errorf("create runtime link: %w", err)
	}
	if err := rt.dir.Rename(tmp, link); err != nil {
		_ = rt.dir.Remove(tmp)
		return fmt.Errorf("install runtime link: %w", err)
	}
	return nil
}

// Close removes the thread directories this runtime created (only while
// each is still the directory it created and still links to this
// launcher) and the snapshot directory. Later PrepareThread calls fail.
func (rt *Runtime) Close() error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		return nil
	}
	rt.closed = true
	if rt.sweep != nil {
		rt.sweep.Stop()
	}
	var errs []error
	want := snapshot.LinkTarget(rt.digest)
	for name, v := range rt.threads {
		if v.held != nil {
			v.held.Close()
		}
		fi, err := rt.dir.Lstat(name)
		if err != nil || idOf(fi) != v.id {
			continue
		}
		if got, err := rt.dir.Readlink(name + "/" + ident.RuntimeLink); err != nil || got != want {
			continue // another router took the thread over
		}
		if err := rt.dir.RemoveAll(name); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", name, err))
		}
	}
	name := snapshot.DirName(rt.digest)
	if fi, err := rt.dir.Lstat(name); err == nil && idOf(fi) == rt.snapID {
		if err := rt.dir.RemoveAll(name); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", name, err))
		}
	}
	errs = append(errs, rt.dir.Close())
	errs = append(errs, closeLock(rt.lock)) // last: the root is no longer ours once it is released
	return errors.Join(errs...)
}

// lockRoot takes root's lock for a router listening on addr; none when
// addr is "" (WithRootLock not given).
func lockRoot(root, addr string) (*snapshot.RootLock, error) {
	if addr == "" {
		return nil, nil
	}
	return snapshot.LockRoot(root, addr, os.Getuid())
}

// closeLock releases a root lock, if one is held.
func closeLock(l *snapshot.RootLock) error {
	if l == nil {
		return nil
	}
	return l.Close()
}
