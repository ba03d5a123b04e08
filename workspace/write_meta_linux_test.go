package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A rewrite keeps the owner, group, mode bits (setuid, setgid and sticky
// included) and extended attributes of the file it replaces (issue 33
// case 7), whether it renames a new copy into place or writes a
// hard-linked file in place.
func TestWriteKeepsMetadata(t *testing.T) {
	tests := []struct {
		name  string
		mode  os.FileMode
		links bool
	}{
		{"setuid", 0o755 | os.ModeSetuid, false},
		{"setgid", 0o750 | os.ModeSetgid, false},
		{"sticky and read-only", 0o444 | os.ModeSticky, false},
		{"setuid, hard-linked", 0o755 | os.ModeSetuid, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t, map[string]string{"a.sh": "echo one\n"})
			p := filepath.Join(tr.root, "a.sh")
			if tc.links {
				hardlink("a.sh", "b.sh")(t, tr)
			}
			xattr := setXattr(t, p)
			owner := chownAway(t, p)
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			plan, err := resolve(t, tr.env(), "in a.sh\ntype \"echo one\" \"echo ONE\"")
			if err != nil {
				t.Fatal(err)
			}
			if err := plan.Write(context.Background()); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(p); string(data) != "echo ONE\n" {
				t.Fatalf("content %q", data)
			}
			if fi.Mode() != tc.mode {
				t.Errorf("mode %v, want %v", fi.Mode(), tc.mode)
			}
			if got := metaOf(fi); owner >= 0 && (got.uid != owner || got.gid != owner+1) {
				t.Errorf("owner %d:%d, want %d:%d", got.uid, got.gid, owner, owner+1)
			}
			if xattr {
				buf := make([]byte, 64)
				n, err := unix.Getxattr(p, "user.hpatch-test", buf)
				if err != nil || string(buf[:n]) != "kept" {
					t.Errorf("user.hpatch-test = %q, %v; want \"kept\"", buf[:max(n, 0)], err)
				}
			}
		})
	}
}

// setXattr sets user.hpatch-test on p and reports whether the file system
// allows it (tmpfs before Linux 6.6 has no user.* attributes).
func setXattr(t *testing.T, p string) bool {
	t.Helper()
	err := unix.Setxattr(p, "user.hpatch-test", []byte("kept"), 0)
	if errors.Is(err, unix.ENOTSUP) {
		t.Log("no user.* extended attributes on this file system; not checked")
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// chownAway gives p to uid 4242, gid 4243 when the test runs as root and
// returns that uid, or -1 (an unprivileged test cannot give a file away).
func chownAway(t *testing.T, p string) int {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Log("not root: the owner is not checked")
		return -1
	}
	if err := os.Chown(p, 4242, 4243); err != nil {
		t.Fatal(err)
	}
	return 4242
}
