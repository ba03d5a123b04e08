package regfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestNotRegularErrorNamesTheType(t *testing.T) {
	for mode, want := range map[fs.FileMode]string{
		fs.ModeDir: "a directory", fs.ModeNamedPipe: "a named pipe", fs.ModeSocket: "a socket",
		fs.ModeDevice | fs.ModeCharDevice: "a character device", fs.ModeDevice: "a block device",
		fs.ModeIrregular: "a special file", fs.ModeSymlink: "a symlink",
	} {
		if got := (&NotRegularError{mode}).What(); got != want {
			t.Errorf("%v: %q, want %q", mode, got, want)
		}
	}
}

// noFollow looks at names without following a symlink, as the workspace
// does inside its root.
type noFollow struct{ OS }

func (noFollow) Stat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "file"), []byte("text"), 0o644))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "dir"), 0o755))
	must(os.Symlink("file", filepath.Join(dir, "link")))
	notRegular := func(mode fs.FileMode) func(error) bool {
		return func(err error) bool {
			var e *NotRegularError
			return errors.As(err, &e) && e.Mode.Type()&mode != 0
		}
	}
	for _, tc := range []struct {
		name string
		fsys FS
		path string
		err  func(error) bool
	}{
		{"regular file", OS{}, "file", nil},
		{"symlink followed", OS{}, "link", nil},
		{"symlink not followed", noFollow{}, "link", notRegular(fs.ModeSymlink)},
		{"FIFO without a writer is not opened", OS{}, "fifo", notRegular(fs.ModeNamedPipe)},
		{"directory", OS{}, "dir", notRegular(fs.ModeDir)},
		{"missing", OS{}, "nope", func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, fi, err := Open(tc.fsys, filepath.Join(dir, tc.path))
			if tc.err != nil {
				if err == nil || !tc.err(err) {
					t.Fatalf("err %v (%T)", err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			data, err := io.ReadAll(f)
			if err != nil || string(data) != "text" || fi.Size() != 4 {
				t.Fatalf("data %q size %d err %v", data, fi.Size(), err)
			}
		})
	}
}
