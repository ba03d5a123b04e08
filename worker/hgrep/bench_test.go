package hgrep

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"hpatch-router/worker/privcmd"

	"hpatch-router/internal/testenv"
)

// benchPattern is searched in $(go env GOROOT)/src by hgrep and by plain
// `rg --json`; its rows stay well under MaxOutput, so both do all the work.
const benchPattern = `func \(\w+ \*Reader\)`

func goroot(b *testing.B) string {
	testenv.NeedTool(b, "rg")
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skip("no GOROOT/src")
	}
	return src
}

func runHgrep(b *testing.B, src string) {
	env := &privcmd.Env{Stdout: io.Discard, Stderr: io.Discard, Dir: src, Environ: os.Environ(), Limits: privcmd.Bounds("hgrep")}
	if code := Run(context.Background(), env, []string{"hgrep", benchPattern}); code != 0 {
		b.Fatalf("hgrep exit %d", code)
	}
}

func runRgJSON(b *testing.B, src string) {
	cmd := exec.Command("rg", "--json", "--no-config", "--", benchPattern, ".")
	cmd.Dir = src
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkHgrepGoroot(b *testing.B) {
	src := goroot(b)
	for b.Loop() {
		runHgrep(b, src)
	}
}

func BenchmarkRgJSONGoroot(b *testing.B) {
	src := goroot(b)
	for b.Loop() {
		runRgJSON(b, src)
	}
}

// BenchmarkHgrepVsRgJSON runs both in every iteration, swapping which goes
// first, so load on a shared machine and cache warmth hit both alike, and
// reports hgrep's time over rg's.
func BenchmarkHgrepVsRgJSON(b *testing.B) {
	src := goroot(b)
	var hg, rg time.Duration
	timed := func(f func(*testing.B, string)) time.Duration {
		t0 := time.Now()
		f(b, src)
		return time.Since(t0)
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			rg += timed(runRgJSON)
			hg += timed(runHgrep)
		} else {
			hg += timed(runHgrep)
			rg += timed(runRgJSON)
		}
	}
	b.ReportMetric(float64(hg.Milliseconds())/float64(b.N), "hgrep-ms/op")
	b.ReportMetric(float64(rg.Milliseconds())/float64(b.N), "rg-json-ms/op")
	b.ReportMetric(float64(hg)/float64(rg), "ratio")
}
