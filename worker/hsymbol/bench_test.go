//go:build linux

package hsymbol

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/rows"
	"hpatch-router/worker/privcmd"
)

// benchHomeEnv says where the benchmark's servers keep their state:
// "fresh" (the default) gives every session a new, writable HOME, XDG_*
// and TMPDIR, so each one starts cold as on a machine where it never ran;
// "given" keeps the process's own, which is how scripts/bench-hsymbol.sh
// runs it inside Codex's read-only sandbox (nothing there can be kept, so
// every session is cold too).
const benchHomeEnv = "HPATCH_BENCH_HSYMBOL_HOME"

// latencyCase is two calls of one script to one server: first starts it,
// second reuses it.
type latencyCase struct {
	name, server string
	dir          string   // the shell's cwd
	first        []string // hsymbol arguments
	second       []string
}

// BenchmarkHsymbolLatency measures, per server and iteration, three calls
// in three places: the first call of a run (the server starts cold), the
// second call of the same run (same server), and that second call alone in
// a run of its own (cold). Metrics are milliseconds: the median and the
// range over the iterations. gopls works on this repository (a definition
// in another package, then the references of privcmd.Env), pyright and
// typescript-language-server on the fixture workspace. scripts/
// bench-hsymbol.sh prints them as a table, in and out of Codex's sandbox.
func BenchmarkHsymbolLatency(b *testing.B) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	fixture := filepath.Join(repo, "testdata", "workspace")
	cases := []latencyCase{
		{name: "gopls", server: "gopls", dir: repo,
			first:  row(b, repo, "worker/hsymbol/run.go", "env.LookPath(srv.name)", "def", "LookPath"),
			second: row(b, repo, "worker/privcmd/privcmd.go", "type Env struct {", "refs", "Env")},
		{name: "pyright", server: "pyright-langserver", dir: fixture,
			first:  row(b, fixture, "py/app.py", `greeter = Greeter("py")`, "def", "Greeter"),
			second: row(b, fixture, "py/app.py", `greeter.greet("x")`, "refs", "greet")},
		{name: "typescript", server: "typescript-language-server", dir: fixture,
			first:  row(b, fixture, "ts/app.ts", "const c = new Circle(2);", "def", "Circle"),
			second: row(b, fixture, "ts/app.ts", "console.log(total([c]), readFileSync);", "refs", "total")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			testenv.NeedTool(b, c.server)
			var first, second, alone []time.Duration
			for range b.N {
				d := benchRun(b, c.dir, c.first, c.second)
				first, second = append(first, d[0]), append(second, d[1])
				alone = append(alone, benchRun(b, c.dir, c.second)[0])
			}
			report(b, "first", first)
			report(b, "second", second)
			report(b, "alone", alone)
		})
	}
}

// benchRun times each call of one run, in its own home.
func benchRun(b *testing.B, dir string, calls ...[]string) []time.Duration {
	environ := os.Environ()
	var roots []string
	if os.Getenv(benchHomeEnv) != "given" {
		home := testenv.FreshHome(b)
		defer os.RemoveAll(filepath.Dir(home.Dir)) // a cold gopls cache is large
		environ, roots = home.Environ(environ), []string{home.Dirs["TMPDIR"]}
	}
	pool := newSessions(settings{tempRoots: roots})
	defer pool.Close()
	var took []time.Duration
	for _, args := range calls {
		var out, errb bytes.Buffer
		env := &privcmd.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir, Environ: environ,
			Limits: serverLimits()}
		start := time.Now()
		code := pool.Run(b.Context(), env, append([]string{"hsymbol"}, args...))
		took = append(took, time.Since(start))
		if code != 0 || out.Len() == 0 {
			b.Fatalf("hsymbol %s: exit %d, stderr %q", strings.Join(args, " "), code, errb.String())
		}
	}
	return took
}

// row is the hsymbol arguments for symbol on the first line of file that
// contains text: op, the path, LINE:HASH and the symbol.
func row(b *testing.B, dir, file, text, op, symbol string) []string {
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range rows.Split(data) {
		if bytes.Contains(r.Text, []byte(text)) {
			return []string{op, file, r.Cite(), symbol}
		}
	}
	b.Fatalf("%s has no line containing %q", file, text)
	return nil
}

// report adds the median, fastest and slowest of ds as NAME-p50-ms,
// NAME-min-ms and NAME-max-ms.
func report(b *testing.B, name string, ds []time.Duration) {
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(ds[len(ds)/2]), name+"-p50-ms")
	b.ReportMetric(ms(ds[0]), name+"-min-ms")
	b.ReportMetric(ms(ds[len(ds)-1]), name+"-max-ms")
	b.ReportMetric(0, "ns/op")
}
