package privcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LookPath searches the evaluation's PATH from the evaluation's directory:
// relative and empty entries and names with a slash resolve against Dir,
// and only regular executable files count.
func TestLookPath(t *testing.T) {
	root := t.TempDir()
	write := func(rel string, mode os.FileMode) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tool := write("bin/tool", 0o755)
	local := write("work/tool", 0o755)
	write("plain/tool", 0o644)
	if err := os.MkdirAll(filepath.Join(root, "dir/tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(root, "work")
	tests := []struct {
		name, path, dir, cmd, want, err string
	}{
		{"absolute entry", filepath.Join(root, "bin"), work, "tool", tool, ""},
		{"first match wins", filepath.Join(root, "bin") + ":" + work, work, "tool", tool, ""},
		{"not executable is skipped", filepath.Join(root, "plain") + ":" + filepath.Join(root, "bin"), work, "tool", tool, ""},
		{"directory is skipped", filepath.Join(root, "dir") + ":" + filepath.Join(root, "bin"), work, "tool", tool, ""},
		{"relative entry against Dir", "../bin", work, "tool", tool, ""},
		{"empty entry is Dir", ":" + filepath.Join(root, "bin"), work, "tool", local, ""},
		{"name with a slash against Dir", "", root, "work/tool", local, ""},
		{"name with a slash not executable", "", root, "plain/tool", "", "plain/tool is not an executable file"},
		{"not found", filepath.Join(root, "plain"), work, "tool", "", "tool not found on PATH"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := &Env{Dir: tc.dir, Environ: []string{"PATH=/nowhere", "PATH=" + tc.path}}
			got, err := env.LookPath(tc.cmd)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("LookPath(%q) = %q, %v; want an error %q", tc.cmd, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("LookPath(%q) = %q, %v; want %q", tc.cmd, got, err, tc.want)
			}
		})
	}
}
