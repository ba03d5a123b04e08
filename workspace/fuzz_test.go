package workspace

import (
	"context"
	"errors"
	"path"
	"strings"
	"testing"

	"hpatch-router/hpatch"
)

// FuzzResolve resolves arbitrary edits against one small workspace with a
// symlink out of it: whatever the edit, a plan names only files inside the
// root (no `..`, not through the link), and a refusal is one
// *hpatch.Error line.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"in a.txt\ntype \"one\" \"1\"\nadd EOF \"four\"",
		"in ../outside/secret.txt\nrm",
		"in out/secret.txt\ntype \"secret\" \"x\"",
		"new d/e/f.txt\ntype <<PATCH\nx\r\nPATCH\nin a.txt\nmv sub/c.txt",
		"in /etc/passwd\nrm",
		"in sub/../a.txt\nrm\nin a.txt\nrm",
		"in \"sub/b.txt\"\ntype 1:0000 \"x\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, edit string) {
		p, err := hpatch.Parse(edit)
		if err != nil || !p.Workspace {
			return
		}
		tr := newTree(t, map[string]string{"a.txt": "one\r\ntwo\r\nthree", "sub/b.txt": "b\n"})
		symlink(t, tr.outside, tr.root+"/out")
		plan, err := Resolve(context.Background(), tr.env(), p)
		if err != nil {
			var pe *hpatch.Error
			if !errors.As(err, &pe) || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("refusal %T %q is not one PatchError line", err, err)
			}
			return
		}
		for _, f := range plan.Files {
			for _, rel := range []string{f.Rel, f.Dest} {
				if rel == "" && f.Dest == "" {
					continue
				}
				if path.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) || rel == "out" || strings.HasPrefix(rel, "out/") {
					t.Fatalf("plan names %q outside the root or through the link", rel)
				}
			}
			if f.Root != tr.root {
				t.Fatalf("plan names root %q", f.Root)
			}
		}
	})
}
