//go:build linux

package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// describe builds the manifest the router would write for path.
func describe(t *testing.T, path string) Manifest {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return Manifest{Exe: path, Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size, MtimeNs: st.Mtim.Nano()}
}

// TestOpenLauncher: the helper execs only the file the manifest
// registered, checked on the opened descriptor (13.5).
func TestOpenLauncher(t *testing.T) {
	uid := os.Getuid()
	cases := []struct {
		name string
		swap func(t *testing.T, exe string)
		code int
		want string
		root bool // needs root to set up
	}{
		{name: "the registered file opens"},
		{name: "another file renamed over the path", swap: func(t *testing.T, exe string) {
			other := exe + ".new"
			must(t, os.WriteFile(other, []byte("#!/bin/sh\necho evil\n"), 0o755))
			must(t, os.Rename(other, exe))
		}, code: ExitCannotRun, want: "not the file the router registered"},
		{name: "same inode, new mtime", swap: func(t *testing.T, exe string) {
			must(t, os.Chtimes(exe, time.Unix(1, 0), time.Unix(1, 0)))
		}, code: ExitCannotRun, want: "not the file the router registered"},
		{name: "loosened mode", swap: func(t *testing.T, exe string) {
			must(t, os.Chmod(exe, 0o777))
		}, code: ExitCannotRun, want: "writable by group or others"},
		{name: "a symlink put in its place", swap: func(t *testing.T, exe string) {
			must(t, os.Rename(exe, exe+".real"))
			must(t, os.Symlink(exe+".real", exe))
		}, code: ExitCannotRun, want: "symbolic link"},
		{name: "removed", swap: func(t *testing.T, exe string) {
			must(t, os.Remove(exe))
		}, code: ExitNotFound, want: "no longer exists"},
		{name: "owned by another user", swap: func(t *testing.T, exe string) {
			must(t, os.Chown(exe, 65534, 65534))
		}, code: ExitCannotRun, want: "owned by uid 65534", root: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.root && uid != 0 {
				t.Skip("needs root to chown")
			}
			exe := filepath.Join(t.TempDir(), "hpatch-router")
			must(t, os.WriteFile(exe, []byte("\x7fELF not really"), 0o755))
			m := describe(t, exe)
			if c.swap != nil {
				c.swap(t, exe)
			}
			fd, err := OpenLauncher(m, uid)
			if c.code == 0 {
				if err != nil {
					t.Fatal(err)
				}
				defer unix.Close(fd)
				if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC == 0 {
					t.Error("the launcher descriptor leaks into the worker")
				}
				if target, _ := os.Readlink(ExecPath(fd)); target != exe {
					t.Errorf("%s names %q, want %q", ExecPath(fd), target, exe)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) || r.Code != c.code || !strings.Contains(r.Msg, c.want) {
				t.Fatalf("OpenLauncher = %d, %v; want code %d with %q", fd, err, c.code, c.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
