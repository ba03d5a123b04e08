//go:build linux

package worker_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileCase is one private command run on one hostile file, as a whole
// `shell bash SCRIPT` call: scripts/bench-hostile.sh prints its wall time
// and peak RSS (the worker's and its children's, as /usr/bin/time -v
// reports them).
type hostileCase struct {
	name   string
	file   string            // created in the bench directory
	write  func(w io.Writer) // its content; nil for special files
	make   func(path string) error
	script string
}

// repeat writes s n times, then tail.
func repeat(s string, n int, tail string) func(io.Writer) {
	return func(w io.Writer) {
		bw := bufio.NewWriterSize(w, 1<<20)
		for range n {
			bw.WriteString(s)
		}
		bw.WriteString(tail)
		bw.Flush()
	}
}

func hostileCases() []hostileCase {
	const deep = 100_000
	line50MB := repeat("a", 50<<20, "\n")
	return []hostileCase{
		{name: "inspect/md-quote-100k", file: "quote.md", write: repeat(">", deep, " x\n"), script: "inspect_file quote.md"},
		{name: "inspect/md-list-100k", file: "list.md", write: repeat("- ", deep, "x\n"), script: "inspect_file list.md"},
		{name: "inspect/md-links-100k", file: "links.md", write: repeat("[a](", deep, "\n"), script: "inspect_file links.md"},
		{name: "inspect/md-front-matter-100k", file: "fm.md", write: concat(repeat("---\n", 1, ""), repeat("- ", deep, "x\n---\n# h\n")), script: "inspect_file fm.md"},
		{name: "inspect/json-deep-1M", file: "deep.json", write: concat(repeat("[", 1_000_000, ""), repeat("]", 1_000_000, "\n")), script: "inspect_file deep.json"},
		{name: "inspect/go-deep-100k", file: "deep.go", write: concat(repeat("package p\nvar x = ", 1, ""), repeat("(", deep, "1"), repeat(")", deep, "\n")), script: "inspect_file deep.go"},
		{name: "inspect/py-deep-100k", file: "deep.py", write: repeat("(", deep, "\n"), script: "inspect_file deep.py"},
		{name: "inspect/ts-deep-100k", file: "deep.ts", write: repeat("{a:", deep, "\n"), script: "inspect_file deep.ts"},
		{name: "inspect/line-50MB-md", file: "line.md", write: line50MB, script: "inspect_file line.md"},
		{name: "inspect/binary-50MB", file: "random.json", write: randomBytes(50 << 20), script: "inspect_file random.json"},
		{name: "inspect/sparse-4GiB", file: "sparse.md", make: sparse(4 << 30), script: "inspect_file sparse.md"},
		{name: "inspect/typical-go-300-lines", file: "typical.go", write: typicalGo, script: "inspect_file typical.go"},
		{name: "inspect/dense-ts-8MiB", file: "dense.ts", write: denseTS, script: "inspect_file dense.ts"},
		{name: "hread/sparse-1TiB", file: "sparse.txt", make: sparse(1 << 40), script: "hread sparse.txt 1:5"},
		{name: "hread/newlines-32MiB", file: "newlines.txt", write: repeat("\n", 32<<20, ""), script: "hread newlines.txt 1:5"},
		{name: "hread/line-50MB", file: "line.txt", write: line50MB, script: "hread line.txt"},
		{name: "hgrep/line-50MB", file: "line.txt", write: line50MB, script: "hgrep a line.txt"},
		{name: "hgrep/1M-matching-lines", file: "many.txt", write: repeat("needle\n", 1_000_000, ""), script: "hgrep needle many.txt"},
		{name: "hgrep/sparse-1TiB", file: "sparse.txt", make: sparse(1 << 40), script: "hgrep needle sparse.txt"},
		{name: "hgrep/fifo-no-writer", file: "pipe", make: mkfifo, script: "hgrep needle pipe"},
	}
}

// typicalGo is a 300-line Go file: the cost of an ordinary outline.
func typicalGo(w io.Writer) {
	fmt.Fprintln(w, "package typical\n\nimport \"fmt\"")
	for i := range 50 {
		fmt.Fprintf(w, "\n// F%d prints its argument.\nfunc F%d(x int) {\n\tif x > %d {\n\t\tfmt.Println(x)\n\t}\n}\n", i, i, i)
	}
}

// denseTS is 8 MiB of object literals nested 200 deep: within the depth
// limit, and more than tree-sitter can parse in the time limit.
func denseTS(w io.Writer) {
	line := "let x = " + strings.Repeat("{a:", 200) + "1" + strings.Repeat("}", 200) + "\n"
	repeat(line, (8<<20)/len(line), "")(w)
}

// concat writes each part in turn.
func concat(parts ...func(io.Writer)) func(io.Writer) {
	return func(w io.Writer) {
		for _, p := range parts {
			p(w)
		}
	}
}

func randomBytes(n int) func(io.Writer) {
	return func(w io.Writer) { io.CopyN(w, rand.Reader, int64(n)) }
}

// sparse creates a file of size bytes that occupies no blocks.
func sparse(size int64) func(string) error {
	return func(path string) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		f.Close()
		return os.Truncate(path, size)
	}
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// BenchmarkHostile runs each hostile case through the helper and the
// worker; a run is stopped after hostileCap so an unbounded command shows
// up as the cap, not as a benchmark that never ends.
func BenchmarkHostile(b *testing.B) {
	const hostileCap = 120 * time.Second
	e := newBenchEnv(b)
	for _, c := range hostileCases() {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(e.dir, c.file)
			os.Remove(path)
			if err := createHostile(path, c); err != nil {
				b.Fatal(err)
			}
			defer os.Remove(path)
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), hostileCap)
				cmd := exec.CommandContext(ctx, built.helper, "bash", c.script)
				cmd.Args[0] = "shell"
				cmd.Env, cmd.Dir = e.environ, e.dir
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				t0 := time.Now()
				err := cmd.Run()
				d := time.Since(t0)
				code := exitCode(err)
				if ctx.Err() != nil {
					code = -1
				}
				cancel()
				var maxRSS int64
				if cmd.ProcessState != nil {
					maxRSS = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB
				}
				b.ReportMetric(float64(d.Milliseconds()), "ms")
				b.ReportMetric(float64(maxRSS)/1024, "MB-maxrss")
				b.ReportMetric(float64(code), "exit")
				b.Logf("%s: exit %d in %v, stdout %q, stderr %q", c.name, code, d.Round(time.Millisecond), clip(out.String()), clip(errb.String()))
			}
		})
	}
}

func createHostile(path string, c hostileCase) error {
	if c.make != nil {
		return c.make(path)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	c.write(f)
	return f.Close()
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}
