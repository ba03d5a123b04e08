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
// it to its own executable at startup (reg nil: it is registering the
// file); the helper applies it to the opened launcher and the worker to
// itself with the router's record reg, which must describe st, and which
// is how a root-owned file is recognised inside Codex's sandbox (see
// ownerProblem).
func ExecutableProblem(st *syscall.Stat_t, uid int, reg *Manifest) string {
	return executableProblem(st, uid, reg, currentView)
}

// notRegistered is ExecutableProblem's answer for a file that is not the
// one the router recorded.
const notRegistered = "is not the file the router registered (replaced or changed since it started)"

func executableProblem(st *syscall.Stat_t, uid int, reg *Manifest, view func() nsView) string {
	switch {
	case st.Mode&syscall.S_IFMT == syscall.S_IFLNK:
		return "is a symbolic link, not the file the router registered"
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return "is not a regular file"
	case reg != nil && !reg.Describes(st):
		return notRegistered
	case st.Mode&0o022 != 0:
		return "is writable by group or others (chmod go-w it)"
	}
	if p := ownerProblem(st, uid, reg, view); p != "" {
		return p
	}
	if st.Mode&0o111 == 0 {
		return "is not executable"
	}
	return ""
}

// OpenLauncher opens the launcher target the manifest names (O_PATH, the
// last component not followed — a symbolic link is opened as itself and
// refused; the path was resolved when the router registered it) and
// verifies the opened file with ExecutableProblem against the manifest
// (the device, inode, size and mtime the router recorded among it). It
// returns the descriptor (close-on-exec) to exec through
// /proc/self/fd/N, so a file renamed over the path after the check is
// never what runs.
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
	if p := ExecutableProblem(&st, uid, &m); p != "" {
		unix.Close(fd)
		fix := "fix it and restart hpatch-router"
		if p == notRegistered {
			fix = "restart hpatch-router"
		}
		return -1, refuse(ExitCannotRun, "launcher target "+m.Exe+" "+p+"; "+fix)
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
