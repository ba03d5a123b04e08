//go:build linux

package snapshot

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"hpatch-router/ident"
)

// Exit statuses of a refusal, as a shell uses them.
const (
	// ExitCannotRun: the runtime exists but cannot be trusted or run.
	ExitCannotRun = 126
	// ExitNotFound: the runtime (or what it names) does not exist.
	ExitNotFound = 127
)

// Refusal is why a runtime cannot run: Msg is one line without the
// "shell: " prefix, saying what is wrong and what to do.
type Refusal struct {
	Code int
	Msg  string
	// Fix, when set, is Msg's last part, what to do, for a caller that
	// shows the problem and the fix apart (doctor).
	Fix string
}

func (r *Refusal) Error() string { return r.Msg }

func refuse(code int, msg string) *Refusal { return &Refusal{Code: code, Msg: msg} }

// refuseFix is a refusal whose message is the problem, then the fix.
func refuseFix(code int, problem, fix string) *Refusal {
	return &Refusal{Code: code, Msg: problem + "; " + fix, Fix: fix}
}

// Target is a verified launcher: the thread directory, the snapshot that
// owns its launcher, and the executable the launcher names.
type Target struct {
	ThreadDir   string
	SnapshotDir string
	Manifest    Manifest
}

// Locate verifies the runtime of thread below root for the user uid and
// returns the launcher target, or a *Refusal. The root (CheckRoot), every
// directory, link and the manifest must belong to uid and be writable by
// nobody else; the .runtime link must name a snapshot launcher in the same
// root whose manifest digest matches the snapshot's name and whose link
// matches the manifest. The launcher target itself is checked where it is
// used: OpenLauncher before the helper execs it, /proc/self/exe once the
// worker runs.
func Locate(root, thread string, uid int) (Target, error) {
	var t Target
	if thread == "" {
		return t, refuse(ExitNotFound, ThreadEnv+" is not set: run shell from a Codex command, which sets it")
	}
	if err := ident.Thread(thread); err != nil {
		return t, refuse(ExitCannotRun, ThreadEnv+" is not usable: "+err.Error())
	}
	if err := CheckRoot(root, uid); err != nil {
		return t, err
	}
	t.ThreadDir = filepath.Join(root, ident.ThreadDirName(thread))
	if r := checkEntry(t.ThreadDir, uid, syscall.S_IFDIR, "thread runtime directory"); r != nil {
		if r.Code == ExitNotFound {
			r.Msg = "no runtime for this thread at " + t.ThreadDir +
				": start hpatch-router with the same " + RootEnv + " as Codex and let it serve this thread"
		}
		return t, r
	}
	link := filepath.Join(t.ThreadDir, ident.RuntimeLink)
	if r := checkEntry(link, uid, syscall.S_IFLNK, "runtime link"); r != nil {
		return t, r
	}
	target, err := os.Readlink(link)
	if err != nil {
		return t, refuse(ExitCannotRun, "cannot read "+link+": "+errText(err))
	}
	digest := DigestOfLink(target)
	if digest == "" {
		return t, refuse(ExitCannotRun, link+" points to "+strconv.Quote(target)+", which is not a registered launcher; remove "+t.ThreadDir+" and restart hpatch-router")
	}
	t.SnapshotDir = filepath.Join(root, DirName(digest))
	if r := checkEntry(t.SnapshotDir, uid, syscall.S_IFDIR, "runtime snapshot"); r != nil {
		if r.Code == ExitNotFound {
			r.Msg = link + " is dangling: the router that created it is gone; restart hpatch-router"
		}
		return t, r
	}
	data, r := readManifest(filepath.Join(t.SnapshotDir, ManifestName), uid)
	if r != nil {
		return t, r
	}
	if Digest(data) != digest {
		return t, refuse(ExitCannotRun, "runtime snapshot "+t.SnapshotDir+" does not match its manifest digest; remove it and restart hpatch-router")
	}
	if t.Manifest, err = Parse(data); err != nil {
		return t, refuse(ExitCannotRun, "runtime snapshot "+t.SnapshotDir+": "+err.Error()+"; remove it and restart hpatch-router")
	}
	launcher := filepath.Join(t.SnapshotDir, LauncherName)
	if r := checkEntry(launcher, uid, syscall.S_IFLNK, "launcher link"); r != nil {
		return t, r
	}
	if exe, err := os.Readlink(launcher); err != nil || exe != t.Manifest.Exe {
		return t, refuse(ExitCannotRun, "launcher "+launcher+" does not name the executable in its manifest; restart hpatch-router")
	}
	return t, nil
}

// checkEntry lstat's path and refuses anything but the wanted type owned
// by uid; directories must not be writable by group or others.
func checkEntry(path string, uid int, typ uint32, what string) *Refusal {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		if os.IsNotExist(err) {
			return refuse(ExitNotFound, what+" "+path+" does not exist; restart hpatch-router")
		}
		return refuse(ExitCannotRun, "cannot inspect "+what+" "+path+": "+errText(err))
	}
	if st.Mode&syscall.S_IFMT != typ {
		return refuse(ExitCannotRun, what+" "+path+" has the wrong file type; remove it and restart hpatch-router")
	}
	if int(st.Uid) != uid {
		return refuse(ExitCannotRun, what+" "+path+" is owned by uid "+strconv.FormatUint(uint64(st.Uid), 10)+", not by you (uid "+strconv.Itoa(uid)+"); remove it and restart hpatch-router")
	}
	if typ != syscall.S_IFLNK && st.Mode&0o022 != 0 {
		return refuse(ExitCannotRun, what+" "+path+" is writable by group or others; remove it and restart hpatch-router")
	}
	return nil
}

// readManifest reads the manifest through raw system calls: the helper
// reads no other file, and an *os.File would set up the runtime's poller
// (epoll, eventfd and their registrations) for this one read.
func readManifest(path string, uid int) ([]byte, *Refusal) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		if err == syscall.ENOENT {
			return nil, refuse(ExitCannotRun, "runtime snapshot manifest "+path+" is missing; restart hpatch-router")
		}
		return nil, refuse(ExitCannotRun, "cannot open runtime snapshot manifest "+path+": "+err.Error())
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, refuse(ExitCannotRun, "cannot stat "+path+": "+err.Error())
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || int(st.Uid) != uid || st.Mode&0o022 != 0 {
		return nil, refuse(ExitCannotRun, "runtime snapshot manifest "+path+" is not a private regular file of yours; remove the snapshot and restart hpatch-router")
	}
	data, ok := readSmall(fd, maxManifest)
	if !ok {
		return nil, refuse(ExitCannotRun, "cannot read runtime snapshot manifest "+path)
	}
	return data, nil
}

// readSmall reads fd to its end through raw system calls; false when that
// fails or there are more than max bytes.
func readSmall(fd, max int) ([]byte, bool) {
	data := make([]byte, max+1)
	n := 0
	for n < len(data) {
		m, err := syscall.Read(fd, data[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if m == 0 {
			return data[:n], true
		}
		n += m
	}
	return nil, false
}

func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	if le, ok := err.(*os.LinkError); ok {
		return le.Err.Error()
	}
	return err.Error()
}
