package inspect

import (
	"context"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"hpatch-router/worker/privcmd"
)

// largestGoFile is the largest .go file under $(go env GOROOT)/src.
func largestGoFile(b *testing.B) string {
	var best string
	var size int64
	root := filepath.Join(runtime.GOROOT(), "src")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Size() > size {
			best, size = p, fi.Size()
		}
		return nil
	})
	if best == "" {
		b.Skip("no Go files under GOROOT/src")
	}
	b.Logf("largest Go file: %s (%d bytes)", best, size)
	return best
}

func BenchmarkInspectLargestGoFile(b *testing.B) {
	path := largestGoFile(b)
	env := &privcmd.Env{Stdout: io.Discard, Stderr: io.Discard, Dir: "/", Limits: privcmd.Bounds("inspect_file")}
	for b.Loop() {
		if code := Run(context.Background(), env, []string{"inspect_file", path}); code != 0 && code != privcmd.ExitTruncated {
			b.Fatalf("exit %d", code)
		}
	}
}
