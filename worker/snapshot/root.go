//go:build linux

package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
// Each refusal says what to do, and asks for something the user can do:
// in a sticky temp dir only an entry's owner or root can remove it.
func CheckRoot(root string, uid int) error {
	mine := "set " + RootEnv + " to a directory of yours, for hpatch-router and Codex alike"
	var st syscall.Stat_t
	if err := syscall.Lstat(root, &st); err != nil {
		if problem, fix := foreignParent(root, uid); problem != "" {
			return refuseFix(ExitCannotRun, problem, fix+mine)
		}
		if err == syscall.ENOENT {
			return refuse(ExitNotFound, "runtime root "+root+" does not exist: start hpatch-router (it creates it) with the same "+RootEnv+" as Codex")
		}
		return refuseFix(ExitCannotRun, "cannot inspect runtime root "+root+": "+err.Error(), mine)
	}
	if problem, fix := ownership(root, &st, "directory", uid); problem != "" {
		return refuseFix(ExitCannotRun, "runtime root "+root+" "+problem, fix+", or "+mine)
	}
	return nil
}

// CheckOwned applies the runtime root's rule to another entry the router
// trusts for what it runs (the tools directory and its files): path, not
// followed if it is a link, must be a kind ("directory" or "file") of
// uid's that group and others cannot write. The error is one line: what
// is wrong with it and what to do.
func CheckOwned(what, path, kind string, uid int) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return &os.PathError{Op: "inspect " + what, Path: path, Err: err}
	}
	if problem, fix := ownership(path, &st, kind, uid); problem != "" {
		return errors.New(what + " " + path + " " + problem + "; " + fix)
	}
	return nil
}

// ownership is the rule itself: "" when st is a want ("directory" or
// "file") of uid that group and others cannot write; otherwise what is
// wrong (after the entry's name) and the fix the user can apply (in a
// sticky temp dir only an entry's owner or root can remove it).
func ownership(path string, st *syscall.Stat_t, want string, uid int) (problem, fix string) {
	owner := int(st.Uid)
	removal := "remove it"
	switch {
	case owner == 0 && uid != 0:
		removal = "ask root to remove it"
	case owner != uid:
		removal = "ask uid " + strconv.Itoa(owner) + " or root to remove it"
	}
	switch kind := fileKind(st.Mode); {
	case kind != want && owner != uid:
		return "is a " + kind + " owned by uid " + strconv.Itoa(owner) + ", not a " + want + " of yours", removal
	case kind != want:
		return "is a " + kind + ", not a " + want, removal
	case owner != uid:
		return "is owned by uid " + strconv.Itoa(owner) + ", not by you (uid " + strconv.Itoa(uid) + ")", removal
	case st.Mode&0o022 != 0:
		return "is writable by group or others", "chmod go-w " + path
	}
	return "", ""
}

// foreignParent describes a root that cannot be inspected or created
// because the directory meant to hold it belongs to another user (not
// root), and starts its fix. By the root's name (see Root) that directory
// came from XDG_RUNTIME_DIR or TMPDIR, which su and sudo pass on from the
// user who ran them, or else from HPATCH_RUNTIME_DIR. "" when that is not
// the case.
//
// Inside Codex's sandbox a root-owned parent (/tmp, /run/user) shows the
// overflow uid, as another user's would: with no record to tell them
// apart, that is no claim either way.
func foreignParent(root string, uid int) (problem, fix string) {
	parent := filepath.Dir(root)
	var st syscall.Stat_t
	if syscall.Stat(parent, &st) != nil || int(st.Uid) == uid || st.Uid == 0 {
		return "", ""
	}
	if v := currentView(); !v.rootMapped && st.Uid == v.overflow {
		return "", ""
	}
	problem = "runtime root " + root + " is in " + parent + ", which belongs to uid " + strconv.Itoa(int(st.Uid)) +
		", not to you (uid " + strconv.Itoa(uid) + ")"
	var variable string
	switch filepath.Base(root) {
	case RootName:
		variable = "an XDG_RUNTIME_DIR"
	case RootName + "-" + strconv.Itoa(uid):
		variable = "a TMPDIR"
	default:
		return problem, ""
	}
	_, name, _ := strings.Cut(variable, " ")
	return problem + ": " + variable + " that su or sudo passed on", "unset " + name + ", or "
}

// fileKind names what a non-directory entry is, for a refusal.
func fileKind(mode uint32) string {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return "directory"
	case syscall.S_IFLNK:
		return "symbolic link"
	case syscall.S_IFREG:
		return "file"
	default:
		return "special file"
	}
}
