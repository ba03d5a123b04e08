package hgrep

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"hpatch-router/worker/privcmd"
)

// benchPattern is searched in $(go env GOROOT)/src by both benchmarks, so
// their ns/op give hgrep's cost over ripgrep's JSON output alone.
const benchPattern = `func \(\w+ \*Reader\)`

func goroot(b *testing.B) string {
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip("no GOROOT/src")
	}
	return src
}

func BenchmarkHgrepGoroot(b *testing.B) {
	src := goroot(b)
	env := &privcmd.Env{Stdout: io.Discard, Stderr: io.Discard, Dir: src, Environ: os.Environ()}
	for b.Loop() {
		if code := Run(context.Background(), env, []string{"hgrep", benchPattern}); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

func BenchmarkRgJSONGoroot(b *testing.B) {
	src := goroot(b)
	for b.Loop() {
		cmd := exec.Command("rg", "--json", "--no-config", "--", benchPattern, ".")
		cmd.Dir = src
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
