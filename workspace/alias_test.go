package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/hpatch"
)

// Sections that reach one file by two names are one file: their edits
// apply to one baseline, in order, and the write keeps every name seeing
// the result (issue 33 case 5). Moving, removing or creating it under two
// names is refused naming both, before anything is written.
func TestAliasesAreOneFile(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, tr tree)
		edit    string
		want    string // the bytes every name reads after the write
		inPlace bool
		report  string // the report's first line
		refused string // a refusal at line refusedLine instead
		line    int
	}{
		{name: "two hard links", setup: hardlink("d/a.txt", "b.txt"),
			edit: "in d/a.txt\ntype \"one\" \"ONE\"\nin b.txt\ntype \"three\" \"THREE\"",
			want: "ONE\ntwo\nTHREE\n", inPlace: true, report: "d/a.txt (also b.txt)"},
		{name: "a symlinked directory", setup: dirlink("d", "link"),
			edit: "in d/a.txt\ntype \"one\" \"ONE\"\nin link/a.txt\ntype \"three\" \"THREE\"",
			want: "ONE\ntwo\nTHREE\n", report: "d/a.txt (also link/a.txt)"},
		{name: "./a and a", edit: "in d/a.txt\ntype \"one\" \"ONE\"\nin ./d/../d/a.txt\ntype \"three\" \"THREE\"",
			want: "ONE\ntwo\nTHREE\n", report: "d/a.txt"},
		{name: "one row edited through both names overlaps", setup: hardlink("d/a.txt", "b.txt"),
			edit: "in d/a.txt\ntype \"one\" \"ONE\"\nin b.txt\ntype \"one\" \"uno\"", refused: "overlap", line: 4},
		{name: "removed under the other name", setup: hardlink("d/a.txt", "b.txt"),
			edit: "in d/a.txt\ntype \"one\" \"ONE\"\nin b.txt\nrm", line: 3,
			refused: "b.txt and d/a.txt (line 1) are one file (a hard link, or a path through a symlinked directory)"},
		{name: "moved under the other name", setup: dirlink("d", "link"),
			edit: "in d/a.txt\ntype \"one\" \"ONE\"\nin link/a.txt\nmv c.txt", line: 3,
			refused: "link/a.txt and d/a.txt (line 1) are one file"},
		{name: "created under two names", setup: dirlink("d", "link"),
			edit: "new d/n.txt\ntype \"x\"\nnew link/n.txt\ntype \"y\"", line: 3,
			refused: "link/n.txt and d/n.txt (line 1) are one file"},
		{name: "moved onto the other name of a new file", setup: dirlink("d", "link"),
			edit: "new d/n.txt\ntype \"x\"\nin b2.txt\nmv link/n.txt", line: 4,
			refused: "link/n.txt is also named at line 1"},
		{name: "moved onto its own other name", setup: hardlink("d/a.txt", "b.txt"),
			edit: "in d/a.txt\nmv b.txt", line: 2, refused: "mv b.txt: the destination is the file itself"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t, map[string]string{"d/a.txt": "one\ntwo\nthree\n", "b2.txt": "b2\n"})
			if tc.setup != nil {
				tc.setup(t, tr)
			}
			before := listing(t, tr.root)
			plan, err := resolve(t, tr.env(), tc.edit)
			if tc.refused != "" {
				var pe *hpatch.Error
				if !errors.As(err, &pe) || pe.Line != tc.line || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("got %v, want line %d containing %q", err, tc.line, tc.refused)
				}
				if after := listing(t, tr.root); !equalMaps(before, after) {
					t.Fatalf("a refusal changed the workspace:\n%s", show(after))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Files) != 1 || plan.Files[0].InPlace != tc.inPlace || !strings.HasPrefix(plan.Report, tc.report+"\n") {
				t.Fatalf("files %+v, report %q", plan.Files, plan.Report)
			}
			if err := plan.Write(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"d/a.txt", "b.txt", "link/a.txt"} {
				if data, err := os.ReadFile(filepath.Join(tr.root, name)); err == nil && string(data) != tc.want {
					t.Errorf("%s reads %q, want %q", name, data, tc.want)
				}
			}
			if tc.inPlace {
				a, _ := os.Stat(filepath.Join(tr.root, "d/a.txt"))
				b, _ := os.Stat(filepath.Join(tr.root, "b.txt"))
				if !os.SameFile(a, b) {
					t.Fatal("the hard links were split")
				}
			}
		})
	}
}

func hardlink(old, name string) func(t *testing.T, tr tree) {
	return func(t *testing.T, tr tree) {
		if err := os.Link(filepath.Join(tr.root, old), filepath.Join(tr.root, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func dirlink(dir, name string) func(t *testing.T, tr tree) {
	return func(t *testing.T, tr tree) { symlink(t, dir, filepath.Join(tr.root, name)) }
}

// A hard-linked file rewritten in place and moved keeps its inode under
// the new name.
func TestInPlaceMove(t *testing.T) {
	tr := newTree(t, map[string]string{"a.txt": "one\n", "z.txt": "z\n"})
	hardlink("a.txt", "keep.txt")(t, tr)
	plan, err := resolve(t, tr.env(), "in a.txt\nmv m.txt\ntype \"one\" \"ONE\"")
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Write(context.Background()); err != nil {
		t.Fatal(err)
	}
	m, _ := os.Stat(filepath.Join(tr.root, "m.txt"))
	k, _ := os.Stat(filepath.Join(tr.root, "keep.txt"))
	if data, _ := os.ReadFile(filepath.Join(tr.root, "keep.txt")); !os.SameFile(m, k) || string(data) != "ONE\n" {
		t.Fatalf("keep.txt %q, same file %v", data, os.SameFile(m, k))
	}
	if _, err := os.Lstat(filepath.Join(tr.root, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a.txt still there (%v)", err)
	}

}

// The last look before a file is replaced refuses a source that changed
// since the last check (an append, a rewrite, another file in its place).
func TestUnchangedBeforeReplacing(t *testing.T) {
	tests := []struct {
		name   string
		change func(p string)
		want   error
	}{
		{"nothing changed", func(string) {}, nil},
		{"appended", func(p string) {
			f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString("appended\n")
			f.Close()
		}, errWrittenMeanwhile},
		{"another file in its place", func(p string) {
			os.Remove(p)
			os.WriteFile(p, []byte("one\n"), 0o644)
		}, errWrittenMeanwhile},
		{"same size, another modification time", func(p string) {
			os.Chtimes(p, time.Time{}, time.Unix(1, 0))
		}, errWrittenMeanwhile},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t, map[string]string{"a.txt": "one\n"})
			r, err := os.OpenRoot(tr.root)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			seen, err := File{Action: Rewrite, Rel: "a.txt", Old: []byte("one\n")}.recheck(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(filepath.Join(tr.root, "a.txt"))
			if err := unchanged(r, File{Rel: "a.txt"}, seen); err != tc.want {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
