//go:build linux

package snapshot

import (
	"path/filepath"
	"strconv"
	"syscall"
)

// RootName is the runtime root's name below $XDG_RUNTIME_DIR; below the
// temp dir it is RootName-<uid>.
const RootName = "hpatch-router"

// Root is the runtime root of the user uid, by the one rule the router,
// the helper, the worker and doctor share:
//
//   - $HPATCH_RUNTIME_DIR when it is set and absolute (relative: a
//     *Refusal, never a silent fallback);
//   - else $XDG_RUNTIME_DIR/hpatch-router when XDG_RUNTIME_DIR is absolute
//     (logind's 0700 per-user tmpfs);
//   - else hpatch-router-<uid> in the temp dir ($TMPDIR when absolute,
//     else /tmp, as os.TempDir).
//
// getenv is the environment lookup (os.Getenv).
func Root(getenv func(string) string, uid int) (string, error) {
	if d := getenv(RootEnv); d != "" {
		if !filepath.IsAbs(d) {
			return "", refuse(ExitNotFound, RootEnv+"="+strconv.Quote(d)+" is not an absolute path; set it to an absolute directory for hpatch-router and Codex alike, or unset it")
		}
		return filepath.Clean(d), nil
	}
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, RootName), nil
	}
	tmp := getenv("TMPDIR")
	if tmp == "" || !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, RootName+"-"+strconv.Itoa(uid)), nil
}

// CheckRoot refuses a runtime root that is not a real directory of uid
// that group and others cannot write: another user who created it first
// (it is a predictable name in a shared temp dir) must not control what
// the helper runs. The router creates the root 0700 before it checks it.
func CheckRoot(root string, uid int) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(root, &st); err != nil {
		if err == syscall.ENOENT {
			return refuse(ExitNotFound, "runtime root "+root+" does not exist: start hpatch-router (it creates it) with the same "+RootEnv+" as Codex")
		}
		return refuse(ExitCannotRun, "cannot inspect runtime root "+root+": "+err.Error())
	}
	mine := "set " + RootEnv + " to a directory of yours, for hpatch-router and Codex alike"
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFDIR:
		return refuse(ExitCannotRun, "runtime root "+root+" is not a directory (a symbolic link?); remove it, or "+mine)
	case int(st.Uid) != uid:
		return refuse(ExitCannotRun, "runtime root "+root+" is owned by uid "+strconv.Itoa(int(st.Uid))+", not by you (uid "+strconv.Itoa(uid)+"); have it removed, or "+mine)
	case st.Mode&0o022 != 0:
		return refuse(ExitCannotRun, "runtime root "+root+" is writable by group or others; chmod go-w "+root+", or "+mine)
	}
	return nil
}
