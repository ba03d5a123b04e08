package retain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRetainWrites: a retained script is the exact input in a private
// file with no other entry left in scripts/, it never replaces an existing
// name of any kind, and the store records the file it wrote (expiry
// removes it, and leaves a same-content file put in its place).
func TestRetainWrites(t *testing.T) {
	t.Run("exact input", func(t *testing.T) {
		e := newEnv(t, "T1")
		must(t, retainAndCheck(e, "call_1", py))
		must(t, retainAndCheck(e, "call_2", "second\n"))
	})
	t.Run("never overwrites", func(t *testing.T) {
		for name, setup := range map[string]func(p string){
			"artifact":         func(p string) { must(t, os.WriteFile(p, []byte("first\n"), 0o600)) },
			"symlink":          func(p string) { must(t, os.Symlink("../../../workspace/main.go", p)) },
			"directory":        func(p string) { must(t, os.Mkdir(p, 0o700)) },
			"dangling symlink": func(p string) { must(t, os.Symlink("nowhere", p)) },
		} {
			e := newEnv(t, "T1")
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
		e := newEnv(t, "T1")
		_, err := e.retain("T1", "call_1", py)
		must(t, err)
		_, err = e.retain("T1", "call_2", py)
		must(t, err)
		replaced := filepath.Join(e.scriptsDir("T1"), "call_2")
		// Renamed, not removed: the file keeps its inode, which a new file
		// could otherwise reuse.
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
