package hread

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/worker/privcmd"
)

// BenchmarkHread10k is hread's own work in scripts/bench-worker.sh's
// `hread 10k.txt` case: the same 10,000-row file, printed whole.
func BenchmarkHread10k(b *testing.B) {
	benchmark10k(b, func(ctx context.Context, env *privcmd.Env, args []string) int { return Run(ctx, env, args) })
}

func benchmark10k(b *testing.B, hread privcmd.Func) {
	dir := b.TempDir()
	var lines strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "10k.txt"), []byte(lines.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	env := &privcmd.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Dir: dir, Limits: privcmd.Bounds("hread")}
	args := []string{"hread", "10k.txt"}
	b.ReportAllocs()
	for b.Loop() {
		if code := hread(context.Background(), env, args); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
