package retain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/ident"
)

func TestResolve(t *testing.T) {
	e := newEnv(t, "T1", "T2")
	ref, err := e.retain("T1", "call_1", py)
	must(t, err)
	got, err := e.resolve("T1", ref)
	must(t, err)
	if got != py {
		t.Fatalf("Resolve = %q", got)
	}
	// A file retained by an earlier router process is still resolvable.
	must(t, os.WriteFile(filepath.Join(e.scriptsDir("T2"), "old"), []byte("x\n"), 0o600))
	if got, err := e.resolve("T2", "@shell/old"); err != nil || got != "x\n" {
		t.Fatalf("Resolve(old) = %q, %v", got, err)
	}
}

// TestResolveRejects covers the reference rules: missing, cyclic,
// traversing and symlink-escaping references, the launcher, another
// thread's scripts and workspace files never resolve.
func TestResolveRejects(t *testing.T) {
	tests := []struct {
		name    string
		thread  string
		ref     string
		setup   func(e *env, scripts string)
		wantErr string
	}{
		{name: "missing reference", ref: "@shell/nope", wantErr: scriptMissingText("@shell/nope")},
		{name: "not a reference", ref: "src/main.go", wantErr: "does not start with @shell/"},
		{name: "surrounding space", ref: " @shell/call_1", wantErr: "does not start"},
		{name: "trailing space: no id holds a blank", ref: "@shell/call_1 ", wantErr: "blank"},
		{name: "empty id", ref: "@shell/", wantErr: "empty"},
		{name: "traversing reference", ref: "@shell/../.runtime", wantErr: "separator"},
		{name: "traversing to another thread", ref: "@shell/../../hpatch-T2/scripts/call_2", wantErr: "separator"},
		{name: "nested reference", ref: "@shell/a/b", wantErr: "separator"},
		{name: "dotdot reference", ref: "@shell/..", wantErr: "not a filename"},
		{name: "A17: launcher is reserved", ref: "@shell/.runtime", wantErr: "reserved"},
		{name: "A17: launcher through a symlink", ref: "@shell/launch",
			setup:   func(e *env, s string) { must(t, os.Symlink("../.runtime", filepath.Join(s, "launch"))) },
			wantErr: "symlink"},
		{name: "A17: launcher through an absolute symlink", ref: "@shell/launch",
			setup: func(e *env, s string) {
				must(t, os.Symlink(filepath.Join(e.threadDir("T1"), ident.RuntimeLink), filepath.Join(s, "launch")))
			},
			wantErr: "symlink"},
		{name: "A17: another thread's script through a symlink", ref: "@shell/other",
			setup: func(e *env, s string) {
				must(t, os.Symlink("../../hpatch-T2/scripts/call_2", filepath.Join(s, "other")))
			},
			wantErr: "symlink"},
		{name: "A17: another thread's script by id", thread: "T2", ref: "@shell/call_1", wantErr: "does not exist"},
		{name: "A17: workspace file through a symlink", ref: "@shell/ws",
			setup: func(e *env, s string) {
				must(t, os.Symlink(filepath.Join(e.workspace, "main.go"), filepath.Join(s, "ws")))
			},
			wantErr: "symlink"},
		{name: "A17: workspace file through a hard link", ref: "@shell/hl",
			setup: func(e *env, s string) {
				// Same filesystem (both under the test's temp dir).
				must(t, os.Link(filepath.Join(e.workspace, "main.go"), filepath.Join(s, "hl")))
			},
			wantErr: "hard links"},
		{name: "symlink to a sibling script", ref: "@shell/alias",
			setup:   func(e *env, s string) { must(t, os.Symlink("call_1", filepath.Join(s, "alias"))) },
			wantErr: "symlink"},
		{name: "directory", ref: "@shell/d",
			setup:   func(e *env, s string) { must(t, os.Mkdir(filepath.Join(s, "d"), 0o700)) },
			wantErr: "not a regular file"},
		{name: "not UTF-8", ref: "@shell/bin",
			setup:   func(e *env, s string) { must(t, os.WriteFile(filepath.Join(s, "bin"), []byte{0xff, 0xfe}, 0o600)) },
			wantErr: "UTF-8"},
		{name: "cyclic: reruns itself", ref: "@shell/self",
			setup: func(e *env, s string) {
				must(t, os.WriteFile(filepath.Join(s, "self"), []byte("#!script=@shell/self\n"), 0o600))
			},
			wantErr: "cyclic"},
		{name: "cyclic: chain", ref: "@shell/a",
			setup: func(e *env, s string) {
				must(t, os.WriteFile(filepath.Join(s, "a"), []byte("#!script=@shell/b"), 0o600))
				must(t, os.WriteFile(filepath.Join(s, "b"), []byte("#!script=@shell/a"), 0o600))
			},
			wantErr: "do not chain"},
		{name: "A17: unsafe thread id", thread: "../hpatch-T1", ref: "@shell/call_1", wantErr: "separator"},
		// A thread the router has not prepared since it started (a rerun
		// that is the first call after a restart) holds no script.
		{name: "thread without storage", thread: "T9", ref: "@shell/call_1", wantErr: scriptMissingText("@shell/call_1")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "T1", "T2")
			_, err := e.retain("T1", "call_1", py)
			must(t, err)
			_, err = e.retain("T2", "call_2", "T2 SECRET\n")
			must(t, err)
			if tc.setup != nil {
				tc.setup(e, e.scriptsDir("T1"))
			}
			thread := tc.thread
			if thread == "" {
				thread = "T1"
			}
			before := tree(t, e.base)
			got, err := e.resolve(thread, tc.ref)
			if err == nil {
				t.Fatalf("Resolve(%q) = %q, want an error", tc.ref, got)
			}
			if !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line containing %q", err, tc.wantErr)
			}
			if after := tree(t, e.base); !equal(before, after) {
				t.Fatalf("Resolve changed the filesystem")
			}
		})
	}
}

// TestOpenScriptsForHread is the worker's read path: the same checks, no
// directory created.
func TestOpenScriptsForHread(t *testing.T) {
	e := newEnv(t, "T1", "T2")
	_, err := e.retain("T1", "call_1", py)
	must(t, err)
	scripts, err := OpenScripts(e.runtime, "T1")
	must(t, err)
	defer scripts.Close()
	got, err := ReadRef(scripts, "@shell/call_1")
	if err != nil || string(got) != py {
		t.Fatalf("ReadRef = %q, %v", got, err)
	}
	for _, ref := range []string{"@shell/.runtime", "@shell/../.runtime", "@shell/../../hpatch-T2/scripts/x"} {
		if _, err := ReadRef(scripts, ref); err == nil {
			t.Errorf("ReadRef(%q) succeeded", ref)
		}
	}
	if _, err := ReadScript(scripts, ident.RuntimeLink); err == nil {
		t.Error("ReadScript(.runtime) succeeded")
	}
	before := tree(t, e.base)
	for _, th := range []string{"", "..", "../T1", "T9"} {
		if r, err := OpenScripts(e.runtime, th); err == nil {
			r.Close()
			t.Errorf("OpenScripts(%q) succeeded", th)
		}
	}
	must(t, os.Mkdir(e.threadDir("T3"), 0o700))
	if r, err := OpenScripts(e.runtime, "T3"); err == nil {
		r.Close()
		t.Error("OpenScripts created or accepted a missing scripts directory")
	}
	must(t, os.Remove(e.threadDir("T3")))
	if after := tree(t, e.base); !equal(before, after) {
		t.Fatalf("OpenScripts changed the filesystem")
	}
}
