//go:build linux

package snapshot

import (
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// ExecutableProblem says why a launcher target with file status st cannot
// be trusted to run as uid: it must be a regular executable file owned by
// uid or root that group and others cannot write (whoever may write it
// decides what every worker runs). "" when it is fine. The router applies
// it to its own executable at startup, the helper to the opened launcher.
func ExecutableProblem(st *syscall.Stat_t, uid int) string {
	switch {
	case st.Mode&syscall.S_IFMT == syscall.S_IFLNK:
		return "is a symbolic link, not the file the router registered"
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return "is not a regular file"
	case int(st.Uid) != uid && st.Uid != 0:
		return "is owned by uid " + strconv.Itoa(int(st.Uid)) + ", neither you (uid " + strconv.Itoa(uid) + ") nor root"
	case st.Mode&0o022 != 0:
		return "is writable by group or others (chmod go-w it)"
	case st.Mode&0o111 == 0:
		return "is not executable"
	}
	return ""
}

// OpenLauncher opens the launcher target the manifest names (O_PATH, the
// last component not followed — a symbolic link is opened as itself and
// refused; the path was resolved when the router registered it) and
// verifies the opened file: ExecutableProblem, and the
// device, inode, size and mtime the router recorded. It returns the
// descriptor (close-on-exec) to exec through /proc/self/fd/N, so a file
// renamed over the path after the check is never what runs.
func OpenLauncher(m Manifest, uid int) (int, error) {
	fd, err := unix.Open(m.Exe, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case err == unix.ENOENT:
		return -1, refuse(ExitNotFound, "launcher target "+m.Exe+" no longer exists; reinstall or restart hpatch-router")
	case err != nil:
		return -1, refuse(ExitCannotRun, "cannot open launcher target "+m.Exe+": "+err.Error())
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, refuse(ExitCannotRun, "cannot stat launcher target "+m.Exe+": "+err.Error())
	}
	if p := ExecutableProblem(&st, uid); p != "" {
		unix.Close(fd)
		return -1, refuse(ExitCannotRun, "launcher target "+m.Exe+" "+p+"; fix it and restart hpatch-router")
	}
	if !m.Describes(&st) {
		unix.Close(fd)
		return -1, refuse(ExitCannotRun, "launcher target "+m.Exe+" is not the file the router registered (replaced or changed since it started); restart hpatch-router")
	}
	return fd, nil
}

// Describes reports whether st is the file the manifest recorded: same
// device, inode, size and modification time.
func (m Manifest) Describes(st *syscall.Stat_t) bool {
	return uint64(st.Dev) == m.Dev && st.Ino == m.Ino && st.Size == m.Size && st.Mtim.Nano() == m.MtimeNs
}

// ExecPath is the path that executes an open descriptor: the kernel runs
// the file the descriptor holds, whatever its name points to now.
func ExecPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
