package workspace

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// listing is every entry under dir with its bytes ("/" for directories)
// and permission bits, to compare a tree before and after.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, _ := os.Lstat(p)
		switch {
		case d.IsDir():
			out[rel] = "/"
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		default:
			data, _ := os.ReadFile(p)
			out[rel] = fi.Mode().Perm().String() + " " + string(data)
		}
		return nil
	})
	return out
}

func TestWrite(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	tr := newTree(t, map[string]string{"a.txt": "one\r\ntwo\r\nthree", "old.txt": "x\n", "m.txt": "m1\nm2"})
	os.Chmod(filepath.Join(tr.root, "a.txt"), 0o664)
	edit := "in a.txt\ntype \"two\" \"TWO\"\nadd EOF \"four\"\nin old.txt\nrm\nnew d/e/n.md\ntype \"# N\"\nin m.txt\nmv d/m.txt\ntype \"m1\" \"M1\""
	plan, err := resolve(t, tr.env(), edit)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Write(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := listing(t, tr.root)
	want := map[string]string{
		"a.txt":    "-rw-rw-r-- one\r\nTWO\r\nthree\r\nfour",
		"d":        "/",
		"d/e":      "/",
		"d/e/n.md": "-rw-r--r-- # N\n",
		"d/m.txt":  "-rw-r--r-- M1\nm2",
	}
	if !equalMaps(got, want) {
		t.Fatalf("after the write:\n%s\nwant:\n%s", show(got), show(want))
	}
}

// A file that changes between the resolution and the write, or a name
// that appears, stops the whole write: nothing changes, no temporary file
// or directory stays.
func TestWriteRechecks(t *testing.T) {
	tests := []struct {
		name, edit string
		between    func(t *testing.T, tr tree)
		want       string
	}{
		{"a source changed", "in a.txt\ntype \"two\" \"x\"\nnew d/n.txt\ntype \"n\"\nin b.txt\ntype \"b\" \"B\"",
			func(t *testing.T, tr tree) { os.WriteFile(filepath.Join(tr.root, "b.txt"), []byte("b\nb2\n"), 0o644) },
			"b.txt changed since this edit was checked; nothing was written, read it again with hread"},
		{"a source removed", "in a.txt\ntype \"two\" \"x\"\nin b.txt\nrm",
			func(t *testing.T, tr tree) { os.Remove(filepath.Join(tr.root, "b.txt")) },
			"b.txt was removed since this edit was checked; nothing was written"},
		{"a new name taken", "in a.txt\ntype \"two\" \"x\"\nnew d/n.txt\ntype \"n\"",
			func(t *testing.T, tr tree) {
				os.Mkdir(filepath.Join(tr.root, "d"), 0o755)
				os.WriteFile(filepath.Join(tr.root, "d/n.txt"), []byte("theirs"), 0o644)
			},
			"d/n.txt was created since this edit was checked; nothing was written"},
		{"a source replaced by a symlink out", "in b.txt\ntype \"b\" \"B\"",
			func(t *testing.T, tr tree) {
				os.Remove(filepath.Join(tr.root, "b.txt"))
				symlink(t, filepath.Join(tr.outside, "secret.txt"), filepath.Join(tr.root, "b.txt"))
			},
			"b.txt is a symlink"},
		{"a move's destination directory replaced by a symlink out", "in b.txt\nmv sub/b.txt",
			func(t *testing.T, tr tree) {
				os.Remove(filepath.Join(tr.root, "sub/keep"))
				os.Remove(filepath.Join(tr.root, "sub"))
				symlink(t, tr.outside, filepath.Join(tr.root, "sub"))
			},
			"cannot write sub/b.txt (leads out of the workspace root through a symlink); nothing was changed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "b\n", "sub/keep": ""})
			plan, err := resolve(t, tr.env(), tc.edit)
			if err != nil {
				t.Fatal(err)
			}
			tc.between(t, tr)
			before, outside := listing(t, tr.root), listing(t, tr.outside)
			err = plan.Write(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("Write: %v, want one line containing %q", err, tc.want)
			}
			if after := listing(t, tr.root); !equalMaps(before, after) {
				t.Fatalf("a refused write changed the workspace:\n%s\nwas:\n%s", show(after), show(before))
			}
			if after := listing(t, tr.outside); !equalMaps(outside, after) {
				t.Fatalf("a refused write changed files outside the workspace:\n%s", show(after))
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func show(m map[string]string) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + " = " + strings.ReplaceAll(m[k], "\n", `\n`) + "\n")
	}
	return b.String()
}
