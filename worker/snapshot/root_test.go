//go:build linux

package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/internal/testenv"
)

func TestRoot(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
		code int // a *Refusal with this code instead
	}{
		{"HPATCH_RUNTIME_DIR wins", map[string]string{RootEnv: "/run/x/", "XDG_RUNTIME_DIR": "/run/user/7"}, "/run/x", 0},
		{"a relative HPATCH_RUNTIME_DIR is refused, not ignored", map[string]string{RootEnv: "rel/dir", "XDG_RUNTIME_DIR": "/run/user/7"}, "", ExitNotFound},
		{"XDG_RUNTIME_DIR next", map[string]string{"XDG_RUNTIME_DIR": "/run/user/7", "TMPDIR": "/var/tmp"}, "/run/user/7/hpatch-router", 0},
		{"a relative XDG_RUNTIME_DIR is ignored, as the XDG spec says", map[string]string{"XDG_RUNTIME_DIR": "run", "TMPDIR": "/var/tmp"}, "/var/tmp/hpatch-router-7", 0},
		{"per-user name in TMPDIR", map[string]string{"TMPDIR": "/var/tmp/"}, "/var/tmp/hpatch-router-7", 0},
		{"per-user name in /tmp", map[string]string{}, "/tmp/hpatch-router-7", 0},
		{"a relative TMPDIR falls back to /tmp", map[string]string{"TMPDIR": "tmp"}, "/tmp/hpatch-router-7", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Root(func(k string) string { return c.env[k] }, 7)
			var r *Refusal
			switch {
			case c.code != 0:
				if !errors.As(err, &r) || r.Code != c.code || !strings.Contains(r.Msg, "not an absolute path") {
					t.Fatalf("Root = %q, %v; want a refusal with code %d", got, err, c.code)
				}
			case err != nil || got != c.want:
				t.Fatalf("Root = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestCheckRoot(t *testing.T) {
	uid := os.Getuid()
	base := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(base, name)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := mk("good", 0o700)
	link := filepath.Join(base, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, root string
		code       int
		want       string
	}{
		{"private directory", good, 0, ""},
		{"world-writable", mk("open", 0o777), ExitCannotRun, "writable by group or others"},
		{"group-writable", mk("group", 0o770), ExitCannotRun, "writable by group or others"},
		{"your symbolic link", link, ExitCannotRun, "is a symbolic link, not a directory; remove it, or"},
		{"your file", file, ExitCannotRun, "is a file, not a directory; remove it, or"},
		{"missing", filepath.Join(base, "none"), ExitNotFound, "does not exist"},
	}
	type checkCase = struct {
		name, root string
		code       int
		want       string
	}
	if uid == 0 {
		foreign := mk("foreign", 0o700)
		foreignLink := filepath.Join(base, "foreign-link")
		foreignParent := mk("theirs", 0o755)
		for _, p := range []string{foreign, foreignParent} {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(good, foreignLink); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(foreignLink, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases = append(cases,
			checkCase{"owned by another user", foreign, ExitCannotRun, "owned by uid 65534, not by you"},
			// In a sticky temp dir only its owner or root can remove it.
			checkCase{"another user's symbolic link", foreignLink, ExitCannotRun, "is a symbolic link owned by uid 65534, not a directory of yours; ask uid 65534 or root to remove it, or"},
			// An XDG_RUNTIME_DIR or TMPDIR inherited from another user
			// (su, sudo): the root cannot be created there.
			checkCase{"missing, in another user's directory", filepath.Join(foreignParent, RootName), ExitCannotRun,
				"is in " + foreignParent + ", which belongs to uid 65534, not to you (uid 0): an XDG_RUNTIME_DIR that su or sudo passed on; unset XDG_RUNTIME_DIR, or"},
			checkCase{"missing, in another user's TMPDIR", filepath.Join(foreignParent, RootName+"-"+strconv.Itoa(uid)), ExitCannotRun,
				"is in " + foreignParent + ", which belongs to uid 65534, not to you (uid 0): a TMPDIR that su or sudo passed on; unset TMPDIR, or"},
			checkCase{"missing, HPATCH_RUNTIME_DIR in another user's directory", filepath.Join(foreignParent, "mine"), ExitCannotRun,
				"is in " + foreignParent + ", which belongs to uid 65534, not to you (uid 0); set HPATCH_RUNTIME_DIR to a directory of yours"},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckRoot(c.root, uid)
			var r *Refusal
			if c.code == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.As(err, &r) || r.Code != c.code || !strings.Contains(r.Msg, c.want) || strings.Contains(r.Msg, "\n") {
				t.Fatalf("CheckRoot = %v; want code %d with %q", err, c.code, c.want)
			}
		})
	}
	if uid != 0 {
		testenv.Missing(t, "root", "the cases of another user's root, link and directory need chown")
	}
}

func TestExecutableProblem(t *testing.T) {
	uid := 1000
	for _, c := range []struct {
		name string
		st   syscall.Stat_t
		want string
	}{
		{"yours, 0755", syscall.Stat_t{Mode: syscall.S_IFREG | 0o755, Uid: 1000}, ""},
		{"root's, 0555", syscall.Stat_t{Mode: syscall.S_IFREG | 0o555, Uid: 0}, ""},
		{"another user's", syscall.Stat_t{Mode: syscall.S_IFREG | 0o755, Uid: 1001}, "owned by uid 1001"},
		{"group-writable", syscall.Stat_t{Mode: syscall.S_IFREG | 0o775, Uid: 1000}, "writable by group or others"},
		{"world-writable", syscall.Stat_t{Mode: syscall.S_IFREG | 0o757, Uid: 1000}, "writable by group or others"},
		{"not executable", syscall.Stat_t{Mode: syscall.S_IFREG | 0o644, Uid: 1000}, "not executable"},
		{"a directory", syscall.Stat_t{Mode: syscall.S_IFDIR | 0o755, Uid: 1000}, "not a regular file"},
	} {
		got := ExecutableProblem(&c.st, uid, nil)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// CheckOwned is the root's rule for the tools directory and its files.
func TestCheckOwned(t *testing.T) {
	dir := t.TempDir()
	uid := os.Getuid()
	mk := func(name string, mode os.FileMode, isDir bool) string {
		p := filepath.Join(dir, name)
		var err error
		if isDir {
			err = os.Mkdir(p, mode)
		} else {
			err = os.WriteFile(p, nil, mode)
		}
		if err == nil {
			err = os.Chmod(p, mode)
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, kind, want string
	}{
		{mk("ok", 0o700, true), "directory", ""},
		{mk("okfile", 0o644, false), "file", ""},
		{mk("open", 0o777, true), "directory", "is writable by group or others; chmod go-w "},
		{mk("groupfile", 0o664, false), "file", "is writable by group or others"},
		{mk("plain", 0o600, false), "directory", "is a file, not a directory; remove it"},
		{link, "directory", "is a symbolic link, not a directory"},
		{filepath.Join(dir, "missing"), "file", "no such file"},
	}
	for _, tc := range tests {
		err := CheckOwned("tools directory", tc.path, tc.kind, uid)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
}
