//go:build linux

package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLockRoot: one router holds a runtime root. A second is refused with
// the holder's pid and address; a lock file left by a router that is gone
// (no flock on it) is taken over; a lock file that is not a private
// regular file of the user is refused, never followed or written.
func TestLockRoot(t *testing.T) {
	uid := os.Getuid()
	pid := strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, root string) (release func())
		wantErr string // "" → the lock is taken
		held    bool   // the error is a *HeldError
	}{
		{name: "free root", prepare: func(*testing.T, string) func() { return nil }},
		{name: "lock file of a router that is gone", prepare: func(t *testing.T, root string) func() {
			writeMode(t, filepath.Join(root, LockName), "999999 127.0.0.1:1\n", 0o600)
			return nil
		}},
		{name: "held by a live router", held: true, wantErr: "pid " + pid + ", listening on 127.0.0.1:8080",
			prepare: func(t *testing.T, root string) func() {
				l, err := LockRoot(root, "127.0.0.1:8080", uid)
				if err != nil {
					t.Fatal(err)
				}
				return func() { l.Close() }
			}},
		{name: "symlink", wantErr: "remove it", prepare: func(t *testing.T, root string) func() {
			if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), filepath.Join(root, LockName)); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
		{name: "writable by group", wantErr: "writable by group or others", prepare: func(t *testing.T, root string) func() {
			writeMode(t, filepath.Join(root, LockName), "", 0o660)
			return nil
		}},
		{name: "a directory", wantErr: "remove it", prepare: func(t *testing.T, root string) func() {
			if err := os.Mkdir(filepath.Join(root, LockName), 0o700); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if release := tc.prepare(t, root); release != nil {
				defer release()
			}
			l, err := LockRoot(root, "127.0.0.1:8095", uid)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				if got, _ := os.ReadFile(filepath.Join(root, LockName)); string(got) != pid+" 127.0.0.1:8095\n" {
					t.Errorf("lock file holds %q", got)
				}
				h, held, err := RootHolder(root, uid)
				if err != nil || !held || h != (Holder{PID: os.Getpid(), Addr: "127.0.0.1:8095"}) {
					t.Errorf("RootHolder = %+v, %v, %v; want this process", h, held, err)
				}
				return
			}
			if err == nil {
				l.Close()
				t.Fatalf("the lock was taken, want an error with %q", tc.wantErr)
			}
			var he *HeldError
			if !strings.Contains(err.Error(), tc.wantErr) || errors.As(err, &he) != tc.held || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line with %q (held %v)", err, tc.wantErr, tc.held)
			}
		})
	}
}

// TestRootHolderAfterRelease: once its holder closes the lock, a root is
// held by nobody, though the file still names the last holder.
func TestRootHolderAfterRelease(t *testing.T) {
	root := t.TempDir()
	if _, held, err := RootHolder(root, os.Getuid()); held || err != nil {
		t.Fatalf("a root without a lock file: held %v, %v", held, err)
	}
	l, err := LockRoot(root, "127.0.0.1:8080", os.Getuid())
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if h, held, err := RootHolder(root, os.Getuid()); held || err != nil {
		t.Fatalf("after release: %+v held %v, %v", h, held, err)
	}
	l, err = LockRoot(root, "127.0.0.1:8095", os.Getuid())
	if err != nil {
		t.Fatalf("the released lock is not taken over: %v", err)
	}
	l.Close()
}

func writeMode(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// FuzzReadHolder: whatever a lock file holds, reading its holder does not
// fail, and a holder it reports has a positive pid and its line's address.
func FuzzReadHolder(f *testing.F) {
	f.Add([]byte("1234 127.0.0.1:8080\n"))
	f.Add([]byte("-1 x"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), LockName)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		h := readHolder(file)
		if h != (Holder{}) && (h.PID <= 0 || !strings.Contains(string(data), h.Addr)) {
			t.Fatalf("holder %+v from %q", h, data)
		}
	})
}
