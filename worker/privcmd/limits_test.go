package privcmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/regfile"
)

// The worker's table checks every command has its limits
// (TestPrivateCommandsAreBounded); other names get none.
func TestBoundsOfANameThatIsNoCommand(t *testing.T) {
	if l := Bounds("ls"); l != (Limits{}) {
		t.Errorf("a name that is no private command got %+v", l)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "ten"), []byte("0123456789"), 0o644))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "dir"), 0o755))
	f, err := os.Create(filepath.Join(dir, "sparse"))
	must(err)
	must(f.Truncate(1 << 40))
	f.Close()
	ctx := context.Background()
	tests := []struct {
		name  string
		path  string
		limit int64
		want  string
		err   func(error) bool
	}{
		{"regular file", "ten", 10, "0123456789", nil},
		{"one byte over the limit", "ten", 9, "", isTooLarge(10, 9)},
		{"FIFO without a writer is not opened", "fifo", 1 << 20, "", isNotRegular(fs.ModeNamedPipe)},
		{"directory", "dir", 1 << 20, "", isNotRegular(fs.ModeDir)},
		{"/dev/zero", "/dev/zero", 1 << 20, "", isNotRegular(fs.ModeCharDevice)},
		{"sparse 1 TiB file is never read", "sparse", 1 << 20, "", isTooLarge(1<<40, 1<<20)},
		{"missing", "nope", 1, "", func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{"procfs file reports size 0 and has content", "/proc/self/status", 1 << 20, "Name:", nil},
		{"procfs file over the limit", "/proc/self/status", 8, "", func(err error) bool {
			var e *TooLargeError
			return errors.As(err, &e) && e.Limit == 8
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			data, err := ReadFile(ctx, path, tc.limit)
			if tc.err != nil {
				if err == nil || !tc.err(err) {
					t.Fatalf("err %v (%T)", err, err)
				}
				return
			}
			if err != nil || !strings.HasPrefix(string(data), tc.want) {
				t.Fatalf("data %.40q err %v", data, err)
			}
		})
	}
}

func isTooLarge(size, limit int64) func(error) bool {
	return func(err error) bool {
		var e *TooLargeError
		return errors.As(err, &e) && e.Size == size && e.Limit == limit
	}
}

func isNotRegular(mode fs.FileMode) func(error) bool {
	return func(err error) bool {
		var e *regfile.NotRegularError
		return errors.As(err, &e) && e.Mode.Type()&mode != 0
	}
}

// A deadline that has passed stops the read before the first chunk.
func TestReadFileStopsAtTheDeadline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := WithTimeLimit(context.Background(), Limits{Time: 1})
	defer cancel()
	<-ctx.Done()
	if _, err := ReadFile(ctx, path, 1<<20); !errors.Is(err, ErrTimeLimit) || !TimedOut(ctx) {
		t.Fatalf("err %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 256 << 10: "256 KiB", 1 << 30: "1 GiB", 199: "199 bytes", 1536: "1536 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
