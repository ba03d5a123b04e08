//go:build linux

package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"hpatch-router/ident"
	"hpatch-router/internal/testuser"
	"hpatch-router/worker"
	"hpatch-router/worker/snapshot"
)

// PrepareThread trusts what it verified for a thread until the thread
// directory or its scripts/ change; every change between two responses is
// refused or repaired exactly as on the first call. The clock runs an hour
// ahead so the first call's verification counts as settled at once, which
// is the case the one-lstat path serves.
func TestPrepareThreadNoticesChangesAfterVerifying(t *testing.T) {
	type change struct {
		name  string
		apply func(t *testing.T, dir string)
		want  string // error text; "" means the layout is repaired
	}
	changes := []change{
		{"thread dir removed", func(t *testing.T, dir string) {
			must(t, os.RemoveAll(dir))
		}, ""},
		{"thread dir replaced by a link to a private dir", func(t *testing.T, dir string) {
			elsewhere := t.TempDir()
			must(t, os.MkdirAll(filepath.Join(elsewhere, "scripts"), 0o700))
			must(t, os.RemoveAll(dir))
			must(t, os.Symlink(elsewhere, dir))
		}, "exists and is not a directory"},
		{"thread dir replaced by another user's dir", func(t *testing.T, dir string) {
			u := testuser.New(t, "/usr/sbin/nologin") // skips, or fails under CI=true
			must(t, os.RemoveAll(dir))
			must(t, os.Mkdir(dir, 0o700))
			must(t, os.Chown(dir, u.UID, u.GID))
		}, "owned by another user"},
		{"thread dir given to another user", func(t *testing.T, dir string) {
			u := testuser.New(t, "/usr/sbin/nologin")
			must(t, os.Chown(dir, u.UID, u.GID))
		}, "owned by another user"},
		{"thread dir made writable by others", func(t *testing.T, dir string) {
			must(t, os.Chmod(dir, 0o777))
		}, "writable by group or others"},
		{"scripts removed", func(t *testing.T, dir string) {
			must(t, os.RemoveAll(filepath.Join(dir, "scripts")))
		}, ""},
		{"scripts replaced by a file", func(t *testing.T, dir string) {
			must(t, os.RemoveAll(filepath.Join(dir, "scripts")))
			must(t, os.WriteFile(filepath.Join(dir, "scripts"), nil, 0o600))
		}, "exists and is not a directory"},
		{"scripts made writable by others", func(t *testing.T, dir string) {
			must(t, os.Chmod(filepath.Join(dir, "scripts"), 0o777))
		}, "writable by group or others"},
		{".runtime removed", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, ".runtime")))
		}, ""},
		{".runtime relinked by another router", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, ".runtime")))
			must(t, os.Symlink("../"+snapshot.DirName(strings.Repeat("0", 32))+"/launcher", filepath.Join(dir, ".runtime")))
		}, ""},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			root, rt := settledRuntime(t)
			ctx := context.Background()
			must(t, rt.PrepareThread(ctx, "t"))
			must(t, rt.PrepareThread(ctx, "t")) // served from what the first call verified
			dir := filepath.Join(root, ident.ThreadDirName("t"))
			nextTick(t, dir)
			c.apply(t, dir)
			err := rt.PrepareThread(ctx, "t")
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("after the change: %v, want an error with %q", err, c.want)
				}
				return
			}
			must(t, err)
			checkLayout(t, rt, dir)
		})
	}
}

// settledRuntime is a runtime on a fresh root whose clock runs an hour
// ahead, so every verification counts as settled at once: the case the
// short check serves. It is closed when the test ends.
func settledRuntime(t *testing.T) (string, *worker.Runtime) {
	t.Helper()
	root := t.TempDir()
	ahead := func() time.Time { return time.Now().Add(time.Hour) }
	rt, err := worker.NewRuntime(root, worker.WithExecutable(built.router), worker.WithClock(ahead))
	must(t, err)
	t.Cleanup(func() { rt.Close() })
	return root, rt
}

// nextTick waits until a change made now gets a later change time than
// dir's, which settleMargin guarantees in production: file system
// timestamps advance in clock ticks.
func nextTick(t *testing.T, dir string) {
	t.Helper()
	probe := filepath.Join(t.TempDir(), "probe")
	must(t, os.WriteFile(probe, nil, 0o600))
	for {
		must(t, os.Chmod(probe, 0o600))
		if ctime(t, probe) > ctime(t, dir) && ctime(t, probe) > ctime(t, filepath.Join(dir, "scripts")) {
			return
		}
	}
}

func ctime(t *testing.T, path string) int64 {
	var st syscall.Stat_t
	must(t, syscall.Lstat(path, &st))
	return st.Ctim.Nano()
}

// checkLayout asserts the thread directory is a private directory with a
// private scripts/ and a .runtime link to rt's launcher.
func checkLayout(t *testing.T, rt *worker.Runtime, dir string) {
	t.Helper()
	for _, p := range []string{dir, filepath.Join(dir, "scripts")} {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a 0700 directory", p, fi, err)
		}
	}
	target, err := os.Readlink(filepath.Join(dir, ".runtime"))
	if want := "../" + filepath.Base(rt.SnapshotDir()) + "/launcher"; err != nil || target != want {
		t.Errorf(".runtime -> %q (%v), want %q", target, err, want)
	}
}

// A settled thread is served by the short check, also while scripts are
// retained in it between responses (each changes scripts/): it allocates
// less than half of what a full verification does (a stable bound: both
// numbers come from the same os.Root calls, measured in the same run).
func TestPrepareThreadSettledIsShortCheck(t *testing.T) {
	allocs := func(clock func() time.Time) float64 {
		root := t.TempDir()
		rt, err := worker.NewRuntime(root, worker.WithExecutable(built.router), worker.WithClock(clock))
		must(t, err)
		defer rt.Close()
		ctx := context.Background()
		must(t, rt.PrepareThread(ctx, "t"))
		scripts := filepath.Join(root, ident.ThreadDirName("t"), "scripts")
		var names []*byte // made up front: creating a file in a run allocates nothing
		for i := range 60 {
			p, err := syscall.BytePtrFromString(filepath.Join(scripts, "call_"+strconv.Itoa(i)))
			must(t, err)
			names = append(names, p)
		}
		cwd := unix.AT_FDCWD
		return testing.AllocsPerRun(50, func() {
			fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(names[0])),
				unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o600, 0, 0)
			if errno != 0 {
				t.Fatal(errno)
			}
			syscall.Close(int(fd))
			names = names[1:]
			must(t, rt.PrepareThread(ctx, "t"))
		})
	}
	full := allocs(time.Now) // just created: never settled within the test
	short := allocs(func() time.Time { return time.Now().Add(time.Hour) })
	if short*2 >= full {
		t.Errorf("a settled thread costs %v allocations, a full verification %v: the short check is not used", short, full)
	}
}

// PrepareThread holds the directories of the threads it verified last
// open, at most 16, to check their scripts/ with one lstat; Close releases
// them. A thread whose directory is held and one whose directory is not
// both notice a change to scripts/.
func TestPrepareThreadHoldsFewDirectories(t *testing.T) {
	root, rt := settledRuntime(t)
	ctx := context.Background()
	const threads = 40
	for range 2 { // the second round is served by the short check
		for i := range threads {
			must(t, rt.PrepareThread(ctx, "t"+strconv.Itoa(i)))
		}
	}
	if n := descriptorsBelow(t, root); n == 0 || n > 16 {
		t.Fatalf("%d descriptors open below the runtime root after preparing %d threads, want 1 to 16", n, threads)
	}
	for _, i := range []int{0, threads - 1} { // not held, held
		dir := filepath.Join(root, ident.ThreadDirName("t"+strconv.Itoa(i)))
		nextTick(t, dir)
		must(t, os.Chmod(filepath.Join(dir, "scripts"), 0o777))
		if err := rt.PrepareThread(ctx, "t"+strconv.Itoa(i)); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
			t.Errorf("thread %d after scripts/ was made writable by others: %v", i, err)
		}
	}
	must(t, rt.Close())
	if n := descriptorsBelow(t, root); n != 0 {
		t.Fatalf("%d descriptors still open below the runtime root after Close", n)
	}
	if n := descriptorsBelow(t, filepath.Dir(root)); n != 0 {
		t.Fatalf("%d descriptors still open on or below the runtime root after Close", n)
	}
}

// descriptorsBelow counts this process's descriptors open on anything
// below dir (the runtime's own descriptor on dir is not counted).
func descriptorsBelow(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	must(t, err)
	n := 0
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err == nil && strings.HasPrefix(target, dir+"/") {
			n++
		}
	}
	return n
}
