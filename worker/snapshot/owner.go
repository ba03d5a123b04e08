//go:build linux

package snapshot

import (
	"strconv"
	"strings"
	"syscall"
)

// Ownership inside Codex's Linux sandbox. The sandbox runs commands in a
// user namespace that maps the user's own uid but not root, and the kernel
// shows every file whose owner is not mapped — root's, and any other
// user's — as the overflow uid (/proc/sys/kernel/overflowuid, 65534). So
// "owned by root" cannot be read off such a file there; it is what the
// router recorded outside the sandbox (Manifest.Owner) for that very file.

// nsView is how this process's user namespace shows file owners.
type nsView struct {
	rootMapped bool   // uid 0 exists in this namespace (the initial one maps it)
	overflow   uint32 // the uid unmapped owners show as
}

// currentView reads this process's namespace: /proc/self/uid_map (lines
// "inside outside count"; the initial namespace maps inside 0) and
// /proc/sys/kernel/overflowuid. Anything unreadable counts as root mapped,
// which accepts no overflow uid.
func currentView() nsView {
	v := nsView{rootMapped: true}
	maps, ok := readProcFile("/proc/self/uid_map")
	if !ok {
		return v
	}
	v.rootMapped = false
	for line := range strings.SplitSeq(strings.TrimSpace(maps), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			return nsView{rootMapped: true}
		}
		first, err1 := strconv.ParseUint(f[0], 10, 32)
		count, err2 := strconv.ParseUint(f[2], 10, 32)
		if err1 != nil || err2 != nil {
			return nsView{rootMapped: true}
		}
		if first == 0 && count > 0 {
			v.rootMapped = true
		}
	}
	over, ok := readProcFile("/proc/sys/kernel/overflowuid")
	n, err := strconv.ParseUint(strings.TrimSpace(over), 10, 32)
	if !ok || err != nil {
		return nsView{rootMapped: true}
	}
	v.overflow = uint32(n)
	return v
}

// ownerProblem says why the owner in st is neither uid nor root, "" when
// it is one of them. reg is the router's record of the file (nil when the
// router registers it). A file showing the overflow uid counts as root's
// only when this namespace maps no root, reg recorded owner 0 and
// describes this very file (device, inode, size, mtime: a file renamed
// over it has another inode), and the file's change time is the recorded
// one: chown and chmod set it and no user can set it back, so a root-owned
// file given to another user after the router started (who could then
// rewrite it and restore its mtime) is refused.
func ownerProblem(st *syscall.Stat_t, uid int, reg *Manifest, view func() nsView) string {
	if int(st.Uid) == uid || st.Uid == 0 {
		return ""
	}
	owner := "uid " + strconv.Itoa(int(st.Uid))
	if reg != nil {
		if v := view(); !v.rootMapped && st.Uid == v.overflow {
			switch {
			case reg.Owner < 0:
				owner += " inside Codex's sandbox (an older router, which did not record the owner)"
			case reg.Owner != 0:
				owner += " inside Codex's sandbox (uid " + strconv.Itoa(reg.Owner) + " when the router started)"
			case !reg.Describes(st) || st.Ctim.Nano() != reg.CtimeNs:
				owner += " inside Codex's sandbox (root's when the router started, but its owner or mode changed since)"
			default:
				return ""
			}
		}
	}
	return "is owned by " + owner + ", neither you (uid " + strconv.Itoa(uid) + ") nor root"
}

// readProcFile reads a small /proc file (see readManifest for why raw
// system calls); false when it cannot be read whole.
func readProcFile(path string) (string, bool) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer syscall.Close(fd)
	data, ok := readSmall(fd, 4096)
	return string(data), ok
}
