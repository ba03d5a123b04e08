package retain

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// retainWays are the ways a script is written: as an unnamed file (Linux,
// on a file system with O_TMPFILE) linked in by its descriptor, or through
// /proc where the kernel refuses that (forced here), and through a
// temporary name, which a store falls back to when the file system
// refuses unnamed files (forced here by a refusing open).
var retainWays = []struct {
	name      string
	temporary bool
	force     func(e *env)
}{
	{"unnamed", false, func(*env) {}},
	{"unnamed-through-proc", false, (*env).refuseLinkByDescriptor},
	{"temporary-name", true, (*env).useTemporaryNames},
}

// useTemporaryNames makes e's store meet a file system without unnamed
// files.
func (e *env) useTemporaryNames() {
	e.store.unnamed.open = func(int) (int, error) { return -1, errors.ErrUnsupported }
}

// refuseLinkByDescriptor makes e's store meet a kernel older than 6.10,
// which refuses to link a file by its descriptor without
// CAP_DAC_READ_SEARCH.
func (e *env) refuseLinkByDescriptor() {
	e.store.unnamed.linkFD = func(int, int, string) error { return syscall.ENOENT }
}

// TestRetainWays: both ways store the exact input as a private file with
// no other entry left in scripts/, never replace an existing name of any
// kind, record the identity of the file they wrote (expiry removes it,
// and leaves a same-content file put in its place), and the store takes
// the unnamed way wherever the file system allows it.
func TestRetainWays(t *testing.T) {
	for _, way := range retainWays {
		t.Run(way.name, func(t *testing.T) {
			newWayEnv := func(t *testing.T) *env {
				e := newEnv(t, "T1")
				way.force(e)
				return e
			}
			t.Run("exact input", func(t *testing.T) {
				e := newWayEnv(t)
				must(t, retainAndCheck(e, "call_1", py))
				ts := e.store.threads["T1"]
				if unnamed := !ts.noUnnamed; unnamed == way.temporary && (way.temporary || runtime.GOOS == "linux") {
					t.Fatalf("took the unnamed way: %v, want %v", unnamed, !way.temporary)
				}
				// Root may link by descriptor on every kernel (CI runs as root).
				if byProc := e.store.unnamed.noLinkFD; way.name == "unnamed" && byProc && os.Geteuid() == 0 {
					t.Fatal("linked through /proc, though the kernel links by descriptor for root")
				}
				must(t, retainAndCheck(e, "call_2", "second\n")) // the way is remembered per thread
			})
			t.Run("never overwrites", func(t *testing.T) {
				for name, setup := range map[string]func(p string){
					"artifact":         func(p string) { must(t, os.WriteFile(p, []byte("first\n"), 0o600)) },
					"symlink":          func(p string) { must(t, os.Symlink("../../../workspace/main.go", p)) },
					"directory":        func(p string) { must(t, os.Mkdir(p, 0o700)) },
					"dangling symlink": func(p string) { must(t, os.Symlink("nowhere", p)) },
				} {
					e := newWayEnv(t)
					setup(filepath.Join(e.scriptsDir("T1"), "call_1"))
					before := tree(t, e.base)
					if _, err := e.retain("T1", "call_1", "second\n"); err == nil || !strings.Contains(err.Error(), "already exists") {
						t.Fatalf("%s: err = %v, want already exists", name, err)
					}
					if after := tree(t, e.base); !equal(before, after) {
						t.Fatalf("%s: filesystem changed:\nbefore %q\nafter  %q", name, before, after)
					}
				}
			})
			t.Run("expiry knows the file written", func(t *testing.T) {
				e := newWayEnv(t)
				_, err := e.retain("T1", "call_1", py)
				must(t, err)
				_, err = e.retain("T1", "call_2", py)
				must(t, err)
				replaced := filepath.Join(e.scriptsDir("T1"), "call_2")
				// Renamed, not removed: the file keeps its inode, which a
				// new file could otherwise reuse.
				must(t, os.Rename(replaced, replaced+".kept"))
				must(t, os.WriteFile(replaced, []byte(py), 0o600)) // same content, another file
				e.clock.fire()
				if _, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), "call_1")); !os.IsNotExist(err) {
					t.Fatalf("the retained file survived expiry: %v", err)
				}
				if _, err := os.Lstat(replaced); err != nil {
					t.Fatalf("expiry removed a file the store did not write: %v", err)
				}
			})
		})
	}
}

// retainAndCheck retains content as id in thread T1 and checks that
// scripts/ then holds it, 0600, beside the artifacts retained before and
// nothing else.
func retainAndCheck(e *env, id, content string) error {
	before, err := os.ReadDir(e.scriptsDir("T1"))
	if err != nil {
		return err
	}
	if _, err := e.retain("T1", id, content); err != nil {
		return err
	}
	p := filepath.Join(e.scriptsDir("T1"), id)
	got, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	after, err := os.ReadDir(e.scriptsDir("T1"))
	switch {
	case err != nil:
		return err
	case string(got) != content:
		return errors.New("content = " + string(got) + ", want " + content)
	case fi.Mode() != 0o600:
		return errors.New("mode " + fi.Mode().String() + ", want -rw-------")
	case len(after) != len(before)+1:
		return errors.New("scripts/ holds entries besides the artifacts (a temporary file left?)")
	}
	return nil
}
