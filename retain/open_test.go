package retain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hpatch-router/internal/testuser"
)

// TestOpenThreadIsRecheckedEveryOperation: a thread the store keeps open
// between operations is checked again by name before each one, so a change
// made in between gives exactly what a store that opens the storage afresh
// gives: the same refusal, or the same success, and the one each change
// calls for.
func TestOpenThreadIsRecheckedEveryOperation(t *testing.T) {
	otherUser := func(e *env, path string) {
		u := testuser.New(e.t, "/usr/sbin/nologin") // skips, or fails under CI=true
		must(e.t, os.Chown(path, u.UID, u.GID))
	}
	// refused is what the error must say after the change ("" = the
	// retain succeeds): comparing with a fresh store alone would pass a
	// check both of them lost.
	changes := []struct {
		name    string
		refused string
		change  func(e *env)
	}{
		{"thread dir made writable by others", "writable by group or others", func(e *env) { must(e.t, os.Chmod(e.threadDir("T1"), 0o777)) }},
		{"thread dir made writable by its group", "writable by group or others", func(e *env) { must(e.t, os.Chmod(e.threadDir("T1"), 0o770)) }},
		{"scripts/ made writable by others", "writable by group or others", func(e *env) { must(e.t, os.Chmod(e.scriptsDir("T1"), 0o777)) }},
		{"thread dir given to another user", "owned by uid", func(e *env) { otherUser(e, e.threadDir("T1")) }},
		{"scripts/ given to another user", "owned by uid", func(e *env) { otherUser(e, e.scriptsDir("T1")) }},
		{"thread dir replaced by another user's dir", "owned by uid", func(e *env) {
			d := e.threadDir("T1")
			must(e.t, os.Rename(d, d+".moved"))
			must(e.t, os.Mkdir(d, 0o700))
			must(e.t, os.Mkdir(e.scriptsDir("T1"), 0o700))
			otherUser(e, d)
		}},
		{"thread dir removed", "is missing", func(e *env) { must(e.t, os.RemoveAll(e.threadDir("T1"))) }},
		{"thread dir recreated", "", func(e *env) {
			must(e.t, os.RemoveAll(e.threadDir("T1")))
			e.prepare("T1")
		}},
		{"thread dir renamed away and a new one prepared", "", func(e *env) {
			d := e.threadDir("T1")
			must(e.t, os.Rename(d, d+".moved"))
			e.prepare("T1")
		}},
		{"scripts/ removed", "", func(e *env) { must(e.t, os.RemoveAll(e.scriptsDir("T1"))) }},
		{"scripts/ replaced by a file", "not a directory", func(e *env) {
			must(e.t, os.RemoveAll(e.scriptsDir("T1")))
			must(e.t, os.WriteFile(e.scriptsDir("T1"), nil, 0o600))
		}},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "T1")
			e.t = t
			_, err := e.retain("T1", "call_1", py)
			must(t, err)
			if !e.store.threads["T1"].isOpen() {
				t.Fatal("the thread was not kept open after retaining")
			}
			c.change(e)
			_, got := e.store.Retain(context.Background(), "T1", "call_2", py)
			switch {
			case c.refused == "" && got != nil:
				t.Fatalf("retain after the change failed: %v", got)
			case c.refused != "" && (got == nil || !strings.Contains(got.Error(), c.refused)):
				t.Fatalf("retain after the change: %v; want a refusal saying %q", got, c.refused)
			}
			fresh, err := NewStore(e.runtime)
			must(t, err)
			defer fresh.Close()
			_, want := fresh.Retain(context.Background(), "T1", "call_3", py)
			if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
				t.Fatalf("retain in the open thread: %v; in a fresh store: %v", got, want)
			}
			if _, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), "call_2")); got == nil && err != nil {
				t.Fatalf("retained, but not where the thread's scripts are now: %v", err)
			}
		})
	}
}

// TestStorageOfAnotherUserIsRefused: a thread or scripts directory that
// belongs to another user is refused by a store opening it afresh, by a
// store that kept it open since an earlier retain, and by OpenScripts,
// each naming the owner. The store looks the current user up once, not
// per check; the refusal must not depend on when it was looked up.
func TestStorageOfAnotherUserIsRefused(t *testing.T) {
	u := testuser.New(t, "/usr/sbin/nologin") // skips, or fails under CI=true
	owned := "owned by uid " + strconv.Itoa(u.UID)
	for _, dir := range []string{"thread", "scripts"} {
		for _, kept := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/kept-open=%v", dir, kept), func(t *testing.T) {
				e := newEnv(t, "T1")
				if kept {
					_, err := e.retain("T1", "call_1", py)
					must(t, err)
				}
				path := map[string]string{"thread": e.threadDir("T1"), "scripts": e.scriptsDir("T1")}[dir]
				must(t, os.Chown(path, u.UID, u.GID))
				if _, err := e.retain("T1", "call_2", py); err == nil || !strings.Contains(err.Error(), owned) {
					t.Fatalf("retain into %s/ of another user: %v, want an error saying %q", dir, err, owned)
				}
				if _, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), "call_2")); err == nil {
					t.Fatal("the script was written into another user's storage")
				}
				r, err := OpenScripts(e.runtime, "T1")
				if err == nil {
					r.Close()
				}
				if err == nil || !strings.Contains(err.Error(), owned) {
					t.Fatalf("OpenScripts of another user's %s/: %v, want an error saying %q", dir, err, owned)
				}
			})
		}
	}
}
