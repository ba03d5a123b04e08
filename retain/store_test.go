package retain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/ident"
)

const py = "#!/usr/bin/env python3\n#!params={\"tty\":false}\nprint('hi')\n"

func TestRetainStoresExactInput(t *testing.T) {
	e := newEnv(t, "T1")
	ref, err := e.retain("T1", "call_1", py)
	must(t, err)
	if ref != "@shell/call_1" {
		t.Fatalf("ref = %q", ref)
	}
	p := filepath.Join(e.scriptsDir("T1"), "call_1")
	got, err := os.ReadFile(p)
	must(t, err)
	if string(got) != py {
		t.Fatalf("content = %q, want the complete input with shebang and directives", got)
	}
	fi, err := os.Lstat(p)
	must(t, err)
	if fi.Mode() != 0o600 {
		t.Fatalf("mode = %v, want -rw-------", fi.Mode())
	}
	entries, _ := os.ReadDir(e.scriptsDir("T1"))
	if len(entries) != 1 {
		t.Fatalf("scripts/ holds %d entries, want only the artifact (no temporary file left)", len(entries))
	}
	if ex := e.clock.expiries(); len(ex) != 1 || ex[0].d != DefaultTTL {
		t.Fatalf("want one expiry timer of %v", DefaultTTL)
	}
	if strings.Contains(e.logs.String(), "print('hi')") {
		t.Fatalf("script body was logged: %s", e.logs)
	}
}

func TestRetainRejects(t *testing.T) {
	tests := []struct {
		name           string
		thread, id     string
		content        string
		setup          func(e *env)
		wantErrContain string
	}{
		{name: "A17: empty thread id", thread: "", id: "c", content: py, wantErrContain: "empty"},
		{name: "A17: dot thread id", thread: ".", id: "c", content: py, wantErrContain: "not a filename"},
		{name: "A17: dotdot thread id", thread: "..", id: "c", content: py, wantErrContain: "not a filename"},
		{name: "A17: traversing thread id", thread: "../T1", id: "c", content: py, wantErrContain: "separator"},
		{name: "A17: slash thread id", thread: "a/b", id: "c", content: py, wantErrContain: "separator"},
		{name: "A17: backslash thread id", thread: `a\b`, id: "c", content: py, wantErrContain: "separator"},
		{name: "A17: NUL thread id", thread: "a\x00", id: "c", content: py, wantErrContain: "NUL"},
		{name: "unprepared thread", thread: "T9", id: "c", content: py, wantErrContain: "missing"},
		{name: "empty artifact id", thread: "T1", id: "", content: py, wantErrContain: "empty"},
		{name: "dotdot artifact id", thread: "T1", id: "..", content: py, wantErrContain: "not a filename"},
		{name: "traversing artifact id", thread: "T1", id: "../.runtime", content: py, wantErrContain: "separator"},
		{name: "nested artifact id", thread: "T1", id: "a/b", content: py, wantErrContain: "separator"},
		{name: ".runtime is reserved", thread: "T1", id: ".runtime", content: py, wantErrContain: "reserved"},
		{name: "temporary prefix is reserved", thread: "T1", id: ident.TempPrefix + "x", content: py, wantErrContain: "temporary"},
		{name: "overlong artifact id", thread: "T1", id: strings.Repeat("x", 256), content: py, wantErrContain: "at most"},
		{name: "not UTF-8", thread: "T1", id: "c", content: "#!python3\n\xff\n", wantErrContain: "UTF-8"},
		{name: "too large", thread: "T1", id: "c", content: strings.Repeat("x", MaxScriptBytes+1), wantErrContain: "bytes"},
		{name: "sole reference is not retained", thread: "T1", id: "c", content: "#!script=@shell/old\n", wantErrContain: "resolved body"},
		{name: "thread dir is a symlink", thread: "L", id: "c", content: py, wantErrContain: "symlink",
			setup: func(e *env) { must(t, os.Symlink(e.threadDir("T1"), e.threadDir("L"))) }},
		{name: "thread dir writable by group", thread: "G", id: "c", content: py, wantErrContain: "writable",
			setup: func(e *env) { e.prepare("G"); must(t, os.Chmod(e.threadDir("G"), 0o770)) }},
		{name: "scripts dir is a symlink", thread: "S", id: "c", content: py, wantErrContain: "symlink",
			setup: func(e *env) {
				must(t, os.Mkdir(e.threadDir("S"), 0o700))
				must(t, os.Symlink(e.workspace, filepath.Join(e.threadDir("S"), ident.ScriptsDirName)))
			}},
		{name: "scripts dir writable by others", thread: "W", id: "c", content: py, wantErrContain: "writable",
			setup: func(e *env) { e.prepare("W"); must(t, os.Chmod(e.scriptsDir("W"), 0o777)) }},
		{name: "scripts is a file", thread: "F", id: "c", content: py, wantErrContain: "not a directory",
			setup: func(e *env) {
				must(t, os.Mkdir(e.threadDir("F"), 0o700))
				must(t, os.WriteFile(filepath.Join(e.threadDir("F"), ident.ScriptsDirName), nil, 0o600))
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "T1")
			if tc.setup != nil {
				tc.setup(e)
			}
			before := tree(t, e.base)
			parent := tree(t, filepath.Dir(e.base))
			ref, err := e.retain(tc.thread, tc.id, tc.content)
			if err == nil {
				t.Fatalf("Retain accepted it: %q", ref)
			}
			if !strings.Contains(err.Error(), tc.wantErrContain) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line containing %q", err, tc.wantErrContain)
			}
			if after := tree(t, e.base); !equal(before, after) {
				t.Fatalf("Retain changed the filesystem:\nbefore %q\nafter  %q", before, after)
			}
			if after := tree(t, filepath.Dir(e.base)); !equal(parent, after) {
				t.Fatalf("Retain created something beside the runtime root")
			}
			if e.clock.live() != 0 {
				t.Fatalf("a rejected retention armed an expiry timer")
			}
		})
	}
}

func TestRetainNeverOverwrites(t *testing.T) {
	tests := []struct {
		name  string
		setup func(e *env, p string)
	}{
		{"existing artifact", func(e *env, p string) {
			if _, err := e.retain("T1", "call_1", "first\n"); err != nil {
				t.Fatal(err)
			}
		}},
		{"existing file not retained by this store", func(e *env, p string) {
			must(t, os.WriteFile(p, []byte("first\n"), 0o600))
		}},
		{"existing symlink to the workspace", func(e *env, p string) {
			must(t, os.Symlink(filepath.Join(e.workspace, "main.go"), p))
		}},
		{"existing directory", func(e *env, p string) { must(t, os.Mkdir(p, 0o700)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "T1")
			p := filepath.Join(e.scriptsDir("T1"), "call_1")
			tc.setup(e, p)
			before := tree(t, e.base)
			_, err := e.retain("T1", "call_1", "second\n")
			if err == nil || !strings.Contains(err.Error(), "already exists") {
				t.Fatalf("err = %v, want already exists", err)
			}
			if after := tree(t, e.base); !equal(before, after) {
				t.Fatalf("filesystem changed:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

func TestRetainCreatesMissingScriptsDir(t *testing.T) {
	e := newEnv(t)
	must(t, os.Mkdir(e.threadDir("T1"), 0o700))
	if _, err := e.retain("T1", "c", py); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(e.scriptsDir("T1"))
	must(t, err)
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("scripts/ mode %v", fi.Mode())
	}
	must(t, e.store.Close())
	if _, err := os.Lstat(e.scriptsDir("T1")); !os.IsNotExist(err) {
		t.Fatalf("Close kept the scripts directory it created: %v", err)
	}
	if _, err := os.Lstat(e.threadDir("T1")); err != nil {
		t.Fatalf("Close removed the thread directory it did not create: %v", err)
	}
}

func TestRetainAfterCloseFails(t *testing.T) {
	e := newEnv(t, "T1")
	must(t, e.store.Close())
	if _, err := e.retain("T1", "c", py); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("err = %v", err)
	}
	if _, err := e.resolve("T1", "@shell/c"); err == nil {
		t.Fatalf("Resolve after Close succeeded")
	}
}

func TestRetainHonoursContext(t *testing.T) {
	e := newEnv(t, "T1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.store.Retain(ctx, "T1", "c", py); err == nil {
		t.Fatal("Retain ran with a cancelled context")
	}
}

func TestNewStoreOptions(t *testing.T) {
	if _, err := NewStore(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("NewStore opened a missing root")
	}
	if _, err := NewStore(t.TempDir(), TTL(0)); err == nil {
		t.Fatal("NewStore accepted a zero TTL")
	}
	e := newEnv(t, "T1")
	s, err := NewStore(e.runtime, TTL(5), AfterFunc(e.clock.AfterFunc))
	must(t, err)
	defer s.Close()
	if _, err := s.Retain(context.Background(), "T1", "c", py); err != nil {
		t.Fatal(err)
	}
	if ex := e.clock.expiries(); len(ex) == 0 || ex[len(ex)-1].d != 5 {
		t.Fatalf("TTL: expiry timers %v, want the last one of 5ns", ex)
	}
}
