//go:build linux

package snapshot

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LockName is the runtime root's lock file. The router that serves a
// root holds an exclusive flock on it for as long as it runs and writes
// its pid and listen address into it, so a second router of the same
// user refuses that root instead of reclaiming or removing what the first
// one serves. The kernel drops the flock when its process ends, so the
// file of a router that is gone is taken over as it is. The name does not
// start with ident.ThreadDirPrefix, so no thread id can collide with it.
const LockName = "router.lock"

// Holder is the router that holds a runtime root's lock, as it wrote
// itself into the lock file.
type Holder struct {
	PID  int
	Addr string // its listen address, e.g. 127.0.0.1:8080
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "a router that has not written its pid yet"
	}
	return "pid " + strconv.Itoa(h.PID) + ", listening on " + h.Addr
}

// HeldError is LockRoot's refusal: another live router holds the root.
type HeldError struct {
	Root   string
	Holder Holder
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("runtime root %s is served by another hpatch-router (%s); use that one (Codex's base_url http://%s/v1), "+
		"or stop it first, or give this router and its Codex another root (%s=DIR for both)", e.Root, e.Holder, e.Holder.Addr, RootEnv)
}

// RootLock is a held runtime-root lock; Close releases it.
type RootLock struct{ f *os.File }

// Close releases the lock. The file stays: removing it could remove a
// file another router has just locked.
func (l *RootLock) Close() error { return l.f.Close() }

// lockRetries is how often LockRoot tries again when the root's lock is
// held by something that names no live holder (a router between its flock
// and its write, or a doctor probing a file a router that is gone left),
// 20 ms apart.
const lockRetries = 10

// LockRoot takes root's lock for this process, listening on addr, or
// returns a *HeldError naming the router that holds it. root must be a
// checked runtime root (CheckRoot); the lock file must be a regular file
// of uid that nobody else can write.
func LockRoot(root, addr string, uid int) (*RootLock, error) {
	path := filepath.Join(root, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the runtime root's lock %s: %w; remove it if it is not a file of yours", path, err)
	}
	if err := checkLockFile(f, path, uid); err != nil {
		f.Close()
		return nil, err
	}
	for try := 0; ; try++ {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		h := readHolder(f)
		if (h.PID != 0 && alive(h.PID)) || try == lockRetries {
			f.Close()
			return nil, &HeldError{Root: root, Holder: h}
		}
		time.Sleep(20 * time.Millisecond)
	}
	line := strconv.Itoa(os.Getpid()) + " " + addr + "\n"
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(line), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &RootLock{f: f}, nil
}

// RootHolder reports the router that holds root's lock, if one does.
// It probes with a shared lock for an instant, which a router starting at
// that moment waits out (LockRoot's retries).
func RootHolder(root string, uid int) (Holder, bool, error) {
	path := filepath.Join(root, LockName)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, err
	}
	defer f.Close()
	if err := checkLockFile(f, path, uid); err != nil {
		return Holder{}, false, err
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if err == nil {
		return Holder{}, false, nil // closing f releases the probe
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		return Holder{}, false, fmt.Errorf("probe %s: %w", path, err)
	}
	return readHolder(f), true, nil
}

// checkLockFile refuses a lock file that is not a regular file of uid
// writable only by its owner.
func checkLockFile(f *os.File, path string, uid int) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file; remove it", path)
	case !ok || int(st.Uid) != uid:
		return fmt.Errorf("%s is owned by another user; remove it", path)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by group or others; remove it", path)
	}
	return nil
}

// readHolder parses the lock file's "PID ADDR" line; a zero Holder when
// there is none yet.
func readHolder(f *os.File) Holder {
	b := make([]byte, 256)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return Holder{}
	}
	pid, addr, ok := strings.Cut(strings.TrimSpace(string(b[:n])), " ")
	p, err := strconv.Atoi(pid)
	if !ok || err != nil || p <= 0 {
		return Holder{}
	}
	return Holder{PID: p, Addr: addr}
}

// alive reports whether process pid exists (signal 0 checks without
// sending anything).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
