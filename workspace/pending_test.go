package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"hpatch-router/hpatch"
)

// Calls of one response resolve against what the earlier calls will
// write (issue 33 case 6): the later call's plan is the one hpatch-write
// computes once the earlier call wrote, and it names the earlier calls its
// baseline includes with the state before each, so a write that finds
// that state can blame the call that did not write.
func TestPendingCalls(t *testing.T) {
	tests := []struct {
		name         string
		first, later string
		after        bool   // the later call builds on the first
		want         string // a.txt after both calls
	}{
		{"two edits of one file", "in d/a.txt\ntype \"one\" \"ONE\"", "in d/a.txt\ntype \"ONE\" \"1\"\nadd EOF \"four\"", true, "1\ntwo\nthree\nfour\n"},
		{"through a symlinked directory", "in d/a.txt\ntype \"one\" \"ONE\"", "in link/a.txt\ntype \"ONE\" \"1\"", true, "1\ntwo\nthree\n"},
		{"through a hard link", "in d/a.txt\ntype \"one\" \"ONE\"", "in b.txt\ntype \"ONE\" \"1\"", true, "1\ntwo\nthree\n"},
		{"a file the first creates", "new d/n.txt\ntype \"n\"", "in d/n.txt\ntype \"n\" \"N\"", true, "one\ntwo\nthree\n"},
		{"a name the first moves away", "in d/a.txt\nmv d/m.txt", "new d/a.txt\ntype \"fresh\"", true, "fresh\n"},
		{"another file", "in c.txt\ntype \"c\" \"C\"", "in d/a.txt\ntype \"one\" \"1\"", false, "1\ntwo\nthree\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t, map[string]string{"d/a.txt": "one\ntwo\nthree\n", "c.txt": "c\n"})
			symlink(t, "d", filepath.Join(tr.root, "link"))
			hardlink("d/a.txt", "b.txt")(t, tr)
			ctx := context.Background()
			var pd Pending
			first, err := pd.Resolve(ctx, tr.env(), parse(t, tc.first))
			if err != nil {
				t.Fatal(err)
			}
			pd.Add("call_1", first)
			p := parse(t, tc.later)
			later, err := pd.Resolve(ctx, tr.env(), p)
			if err != nil {
				t.Fatalf("the later call: %v", err)
			}
			if got := len(later.After) == 1 && later.After[0].Call == "call_1"; got != tc.after {
				t.Fatalf("After = %+v, want it to name call_1: %v", later.After, tc.after)
			}
			if tc.after && StateDigest(ctx, tr.env(), p) != later.After[0].State {
				t.Fatal("before the first call writes, the state is not the one After names")
			}
			if err := first.Write(ctx); err != nil {
				t.Fatal(err)
			}
			if tc.after && StateDigest(ctx, tr.env(), p) == later.After[0].State {
				t.Fatal("after the first call wrote, the state is still the one before it")
			}
			now, err := Resolve(ctx, tr.env(), p)
			if err != nil || now.Digest() != later.Digest() || now.Report != later.Report {
				t.Fatalf("at write time the later call resolves to another plan (%v)", err)
			}
			if err := now.Write(ctx); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(filepath.Join(tr.root, "d/a.txt")); string(data) != tc.want {
				t.Fatalf("d/a.txt = %q, want %q", data, tc.want)
			}
		})
	}
}

func parse(t *testing.T, edit string) *hpatch.Patch {
	t.Helper()
	p, err := hpatch.Parse(edit)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
