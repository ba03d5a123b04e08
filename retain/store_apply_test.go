package retain

import (
	"context"
	"errors"
	"hpatch-router/hpatch"
	"hpatch-router/rows"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func (e *env) apply(thread, patch string) (string, error) {
	return e.store.Apply(context.Background(), thread, patch)
}

func (e *env) read(thread, id string) string {
	b, err := os.ReadFile(filepath.Join(e.scriptsDir(thread), id))
	must(e.t, err)
	return string(b)
}

func TestStoreApplyAtomicMultiScript(t *testing.T) {
	e := newEnv(t, "T1")
	a := "#!python3\nprint('a')\n"
	b := "#!node\r\nconsole.log('b')\r\n"
	_, err := e.retain("T1", "a", a)
	must(t, err)
	_, err = e.retain("T1", "b", b)
	must(t, err)
	patch := cite(t, "in @shell/a\ntype {2} \"print('A')\"\n", a) + cite(t, "in @shell/b\nadd EOF <<PATCH\nconsole.log('c')\nPATCH\n", b)
	rep, err := e.apply("T1", patch)
	must(t, err)
	if got := e.read("T1", "a"); got != "#!python3\nprint('A')\n" {
		t.Fatalf("a = %q", got)
	}
	if got := e.read("T1", "b"); got != b+"console.log('c')\r\n" {
		t.Fatalf("b = %q (CRLF script must keep CRLF)", got)
	}
	wantRep := "@shell/a\n1:" + rows.Hash([]byte("#!python3")) + " #!python3\n2:" + rows.Hash([]byte("print('A')")) + " print('A')\n" +
		"@shell/b\n2:" + rows.Hash([]byte("console.log('b')")) + " console.log('b')\n3:" + rows.Hash([]byte("console.log('c')")) + " console.log('c')\n"
	if rep != wantRep {
		t.Fatalf("report\n%s\nwant\n%s", rep, wantRep)
	}
	for _, id := range []string{"a", "b"} {
		fi, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), id))
		must(t, err)
		if fi.Mode() != 0o600 {
			t.Fatalf("%s mode %v after edit", id, fi.Mode())
		}
	}
	entries, _ := os.ReadDir(e.scriptsDir("T1"))
	if len(entries) != 2 {
		t.Fatalf("scripts/ holds %d entries after the edit; temporary files left?", len(entries))
	}
	// The report's rows are citable by the next edit.
	next := "in @shell/a\ntype " + strings.Fields(strings.Split(rep, "\n")[2])[0] + " \"print('again')\"\n"
	if _, err := e.apply("T1", next); err != nil {
		t.Fatalf("citing the report: %v", err)
	}
	// A rerun resolves the edited content.
	if got, err := e.resolve("T1", "@shell/a"); err != nil || got != "#!python3\nprint('again')\n" {
		t.Fatalf("Resolve after edit = %q, %v", got, err)
	}
}

func TestStoreApplyChangesNothingOnReject(t *testing.T) {
	tests := []struct{ name, patch string }{
		{"stale target in the second script", "in @shell/a\ntype {1} \"X\"\nin @shell/b\ntype 1:0000 \"Y\"\n"},
		{"second script missing", "in @shell/a\ntype {1} \"X\"\nin @shell/nope\nadd EOF \"Y\"\n"},
		{"second script is a symlink to the workspace", "in @shell/a\ntype {1} \"X\"\nin @shell/ws\nadd EOF \"Y\"\n"},
		{"second script is the launcher", "in @shell/a\ntype {1} \"X\"\nin @shell/.runtime\nadd EOF \"Y\"\n"},
		{"syntax error after a valid section", "in @shell/a\ntype {1} \"X\"\nin @shell/b\ntype {1} nope\n"},
		{"workspace path", "in @shell/a\ntype {1} \"X\"\nin main.go\nadd EOF \"Y\"\n"},
		{"workspace edit given to the store", "in main.go\ntype {1} \"X\"\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "T1")
			_, err := e.retain("T1", "a", "one\n")
			must(t, err)
			_, err = e.retain("T1", "b", "two\n")
			must(t, err)
			must(t, os.Symlink(filepath.Join(e.workspace, "main.go"), filepath.Join(e.scriptsDir("T1"), "ws")))
			before := tree(t, e.base)
			_, err = e.apply("T1", cite(t, tc.patch, "one\n"))
			if err == nil {
				t.Fatal("edit accepted")
			}
			var pe *hpatch.Error
			if strings.Contains(err.Error(), "\n") || strings.HasPrefix(err.Error(), "hpatch:") || !errors.As(err, &pe) {
				t.Fatalf("error %q is not one *hpatch.Error line without a tool prefix", err)
			}
			if after := tree(t, e.base); !equal(before, after) {
				t.Fatalf("a rejected edit changed files:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

func TestStoreApplyThreadScoped(t *testing.T) {
	e := newEnv(t, "T1", "T2")
	_, err := e.retain("T1", "a", "one\n")
	must(t, err)
	_, err = e.apply("T2", cite(t, "in @shell/a\ntype {1} \"X\"", "one\n"))
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("another thread's script was edited: %v", err)
	}
	if _, err := e.apply("../T1", "in @shell/a\nadd EOF \"x\""); err == nil {
		t.Fatal("unsafe thread accepted")
	}
	// A thread the router has not prepared since it started holds no
	// script: the edit says so, not which directory is missing.
	if _, err := e.apply("T9", "in @shell/a\nadd EOF \"x\""); err == nil ||
		err.Error() != "line 1: "+scriptMissingText("@shell/a") {
		t.Fatalf("thread without storage: %v", err)
	}
	if e.read("T1", "a") != "one\n" {
		t.Fatal("T1 changed")
	}
}

// TestEditedArtifactStillExpires: after an edit replaces the file, expiry
// and Close still recognise it as the store's own.
func TestEditedArtifactStillExpires(t *testing.T) {
	for _, end := range []string{"expiry", "Close"} {
		t.Run(end, func(t *testing.T) {
			e := newEnv(t, "T1")
			_, err := e.retain("T1", "a", "one\n")
			must(t, err)
			_, err = e.apply("T1", cite(t, "in @shell/a\ntype {1} \"X\"", "one\n"))
			must(t, err)
			if end == "expiry" {
				e.clock.fire()
			} else {
				must(t, e.store.Close())
			}
			if _, err := os.Lstat(filepath.Join(e.scriptsDir("T1"), "a")); !os.IsNotExist(err) {
				t.Fatalf("edited artifact survived %s: %v", end, err)
			}
		})
	}
}
