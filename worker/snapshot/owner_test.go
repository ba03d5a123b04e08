//go:build linux

package snapshot

import (
	"strings"
	"syscall"
	"testing"
)

// TestExecutableProblemInSandbox: inside a user namespace that maps no
// root (Codex's sandbox), a root-owned file shows the overflow uid. It
// counts as root's only for the very file the router recorded with owner
// 0; a file of another ordinary user (also shown as the overflow uid
// there, recorded with its own uid), another file, a group-writable one, a
// root-owned file whose change time moved (chowned or chmodded since),
// or the same view in a namespace that maps root (where 65534 is the real
// user nobody) is refused.
func TestExecutableProblemInSandbox(t *testing.T) {
	const uid = 1001
	file := syscall.Stat_t{Dev: 7, Ino: 42, Size: 100, Mode: syscall.S_IFREG | 0o755, Uid: 65534}
	file.Mtim.Sec, file.Ctim.Sec = 1700000000, 1700000001
	rec := func(owner int) *Manifest {
		return &Manifest{Exe: "/usr/local/bin/hpatch-router", Dev: 7, Ino: 42, Size: 100, MtimeNs: file.Mtim.Nano(), Owner: owner, CtimeNs: file.Ctim.Nano()}
	}
	sandbox := func() nsView { return nsView{rootMapped: false, overflow: 65534} }
	initial := func() nsView { return nsView{rootMapped: true, overflow: 65534} }
	with := func(f func(st *syscall.Stat_t)) syscall.Stat_t { st := file; f(&st); return st }
	for _, c := range []struct {
		name string
		st   syscall.Stat_t
		reg  *Manifest
		view func() nsView
		want string
	}{
		{"root's file, recorded as root's", file, rec(0), sandbox, ""},
		{"root's file, read-only", with(func(st *syscall.Stat_t) { st.Mode = syscall.S_IFREG | 0o555 }), rec(0), sandbox, ""},
		{"another user's file (recorded uid 1002)", file, rec(1002), sandbox, "uid 1002 when the router started"},
		{"recorded by an older router (no owner)", file, rec(-1), sandbox, "did not record the owner"},
		{"root's file chowned to another user since (change time moved)", with(func(st *syscall.Stat_t) { st.Ctim.Sec++ }), rec(0), sandbox, "owner or mode changed since"},
		{"root's file, group-writable", with(func(st *syscall.Stat_t) { st.Mode = syscall.S_IFREG | 0o775 }), rec(0), sandbox, "writable by group or others"},
		{"root's file, other-writable", with(func(st *syscall.Stat_t) { st.Mode = syscall.S_IFREG | 0o757 }), rec(0), sandbox, "writable by group or others"},
		{"another inode", with(func(st *syscall.Stat_t) { st.Ino = 43 }), rec(0), sandbox, "not the file the router registered"},
		{"a symbolic link", with(func(st *syscall.Stat_t) { st.Mode = syscall.S_IFLNK | 0o777 }), rec(0), sandbox, "symbolic link"},
		{"another device", with(func(st *syscall.Stat_t) { st.Dev = 8 }), rec(0), sandbox, "not the file the router registered"},
		{"another size", with(func(st *syscall.Stat_t) { st.Size = 101 }), rec(0), sandbox, "not the file the router registered"},
		{"another mtime", with(func(st *syscall.Stat_t) { st.Mtim.Nsec = 1 }), rec(0), sandbox, "not the file the router registered"},
		{"namespace maps root: 65534 is nobody", file, rec(0), initial, "owned by uid 65534, neither"},
		{"no record (the router registering)", file, nil, sandbox, "owned by uid 65534, neither"},
		{"another uid than the overflow uid", with(func(st *syscall.Stat_t) { st.Uid = 1002 }), rec(0), sandbox, "owned by uid 1002, neither"},
		{"yours", with(func(st *syscall.Stat_t) { st.Uid = uid }), rec(uid), sandbox, ""},
	} {
		got := executableProblem(&c.st, uid, c.reg, c.view)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCurrentView: whichever namespace the test runs in, a file showing
// the overflow uid is refused when root is mapped (there it is the user
// nobody) and accepted as recorded root's only when root is not.
func TestCurrentView(t *testing.T) {
	v := currentView()
	st := syscall.Stat_t{Mode: syscall.S_IFREG | 0o755, Uid: v.overflow, Ino: 1}
	reg := &Manifest{Owner: 0, Ino: 1}
	p := ExecutableProblem(&st, 1001, reg)
	if v.rootMapped != strings.Contains(p, "owned by uid") {
		t.Fatalf("root mapped %v, overflow uid %d: %q", v.rootMapped, v.overflow, p)
	}
	if v.overflow == 0 {
		t.Fatal("no overflow uid read from /proc/sys/kernel/overflowuid")
	}
}
