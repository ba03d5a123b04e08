package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteNewAndLinkNew(t *testing.T) {
	dir := t.TempDir()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.WriteFile(filepath.Join(dir, "taken"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(r, "taken", 0, 0o600, []byte("new")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("WriteNew over an existing name: %v, want ErrExist", err)
	}
	if err := WriteNew(r, "tmp", 0, 0o600, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := r.Lstat("tmp"); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 3 {
		t.Fatalf("tmp: %v %v", fi, err)
	}
	// An existing name is never replaced, and the temporary file stays.
	if err := LinkNew(r, "tmp", "taken"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("LinkNew over an existing name: %v, want ErrExist", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "taken")); string(data) != "old" {
		t.Fatalf("taken holds %q", data)
	}
	if _, err := r.Lstat("tmp"); err != nil {
		t.Fatalf("the temporary file is gone after a refused link: %v", err)
	}
	if err := LinkNew(r, "tmp", "fresh"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "fresh")); string(data) != "new" {
		t.Fatalf("fresh holds %q", data)
	}
	if _, err := r.Lstat("tmp"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the temporary name stays after the link: %v", err)
	}
}
