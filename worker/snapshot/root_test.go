//go:build linux

package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
	cases := []struct {
		name, root string
		code       int
		want       string
	}{
		{"private directory", good, 0, ""},
		{"world-writable", mk("open", 0o777), ExitCannotRun, "writable by group or others"},
		{"group-writable", mk("group", 0o770), ExitCannotRun, "writable by group or others"},
		{"symbolic link", link, ExitCannotRun, "not a directory"},
		{"missing", filepath.Join(base, "none"), ExitNotFound, "does not exist"},
	}
	if uid == 0 {
		foreign := mk("foreign", 0o700)
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			name, root string
			code       int
			want       string
		}{"owned by another user", foreign, ExitCannotRun, "owned by uid 65534, not by you"})
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
		got := ExecutableProblem(&c.st, uid)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
