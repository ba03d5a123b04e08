//go:build linux

package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hpatch-router/worker"

	"hpatch-router/internal/testenv"
)

// BenchmarkWorkerPath is scripts/bench-worker.sh: whole processes, as a
// Codex command pays for them, run interleaved — every iteration runs
// every case once, and alternate iterations swap the two builds within
// each worker case — so a changing machine load hits all cases alike and
// neither build always runs in the other's wake. It prints one table
// (median and quartiles of the wall time, median CPU time, ratios against
// the plain tools, where `shell bash 'echo hi'` spends its time and its
// floor, two Go images that do nothing) and reports the headline ratios
// as metrics.
//
// With HPATCH_BENCH_BASE_ROUTER and HPATCH_BENCH_BASE_HELPER (binaries
// built from another commit; scripts/bench-worker.sh --base REV builds
// them) every worker case also runs against that build, in the same
// iterations, so before and after are measured under the same load. The
// base runs in HPATCH_BENCH_BASE_RUNTIME, a runtime root its own code
// prepared for thread "bench" (its snapshot manifest may be one this tree
// no longer writes); without it, this tree prepares one for it.
func BenchmarkWorkerPath(b *testing.B) {
	e := newBenchEnv(b)
	builds := []benchBuild{{"", built.router, built.helper}}
	if r, h := os.Getenv("HPATCH_BENCH_BASE_ROUTER"), os.Getenv("HPATCH_BENCH_BASE_HELPER"); r != "" && h != "" {
		builds = append(builds, benchBuild{" (base)", r, h})
	}
	cases, swapped := e.cases(b, builds)
	for i := 0; b.Loop(); i++ {
		order := cases
		if i%2 == 1 {
			order = swapped
		}
		for _, c := range order {
			c.once(b, e)
		}
	}
	printTable(cases, builds)
	for _, bl := range builds {
		if bl.label != "" {
			continue
		}
		for _, r := range benchRatios {
			num, den := find(cases, r.num+bl.label), find(cases, r.den)
			if num != nil && den != nil && len(num.wall) > 0 {
				b.ReportMetric(median(num.wall)/median(den.wall), "x-"+r.metric)
			}
		}
	}
}

const benchPy = "import sys\ntotal = 0\nfor i in range(1000):\n    total += i\nprint(total)\n"

// realPython is the python3 interpreter itself, not a pyenv shim (a bash
// script that costs more than the interpreter's start):
// $HPATCH_BENCH_PYTHON when scripts/bench-worker.sh resolved it, else
// sys.executable.
var realPython = sync.OnceValue(func() string {
	if p := os.Getenv("HPATCH_BENCH_PYTHON"); p != "" {
		return p
	}
	out, err := exec.Command("python3", "-c", "import sys;print(sys.executable)").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

// floorSource is the floor of the worker path's start: a static Go binary
// that, given its own path, execs it once and exits — two Go images doing
// nothing, as `shell` and then the router binary are two images per call.
const floorSource = `package main

import (
	"os"
	"syscall"
)

func main() {
	if len(os.Args) > 1 {
		syscall.Exec(os.Args[1], os.Args[1:2], os.Environ())
	}
	os.Exit(0)
}
`

// workerImageSource is what a second shipped image would be: the worker
// alone (no proxy, TLS, translator or operator tools), with the inspect
// child it starts for outlines. It is never shipped — REQ ¶17 has the
// helper exec the router binary and DESIGN §6 installs hpatch-router and
// shell only; the bench builds it to show what that design change would
// buy, next to the floor.
const workerImageSource = `package main

import (
	"os"
	"path/filepath"

	"hpatch-router/worker"
	"hpatch-router/worker/inspect"
)

func main() {
	if filepath.Base(os.Args[0]) == inspect.ChildArg0 {
		os.Exit(inspect.ChildMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(worker.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
`

// buildMain builds source, a main package, as testenv.Build builds the
// product, to a binary called name. The package is one of this module
// (worker/internal/bench<name>) that exists only in a go build -overlay,
// so it can import the worker without a main package in the tree that
// nothing ships.
func buildMain(b *testing.B, name, source string) string {
	dir := b.TempDir()
	module, err := filepath.Abs("..") // this file is in <module>/worker
	if err != nil {
		b.Fatal(err)
	}
	src, overlay, out := filepath.Join(dir, "main.go"), filepath.Join(dir, "overlay.json"), filepath.Join(dir, name)
	pkg := "worker/internal/bench" + strings.ReplaceAll(name, "-", "")
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(module, pkg, "main.go"): src}})
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := testenv.Build(out, "hpatch-router/"+pkg, "-overlay="+overlay); err != nil {
		b.Fatal(err)
	}
	return out
}

type benchBuild struct {
	label          string // "" for this tree, " (base)" for the other build
	router, helper string
}

// benchEnv is a working directory with 10k.txt, and the environment of a
// Codex command in a thread this tree's router serves (environ) or with no
// runtime (plain).
type benchEnv struct {
	environ, plain []string
	dir            string
}

func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	e := &benchEnv{dir: b.TempDir()}
	path := os.Getenv("PATH")
	if py := realPython(); py != "" {
		path = filepath.Dir(py) + ":" + path // skip a slow pyenv shim
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "HPATCH_RUNTIME_DIR=") && !strings.HasPrefix(kv, "CODEX_THREAD_ID=") {
			e.plain = append(e.plain, kv)
		}
	}
	e.plain = append(e.plain, "PATH="+path)
	e.environ = e.runtimeFor(b, built.router)
	var lines strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "10k.txt"), []byte(lines.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return e
}

// runtimeFor prepares a runtime root whose launcher is router and returns
// the environment a Codex command in its thread has.
func (e *benchEnv) runtimeFor(b *testing.B, router string) []string {
	root := b.TempDir()
	rt, err := worker.NewRuntime(root, worker.WithExecutable(router))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close() })
	if err := rt.PrepareThread(context.Background(), "bench"); err != nil {
		b.Fatal(err)
	}
	return append(slices.Clone(e.plain), "HPATCH_RUNTIME_DIR="+root, "CODEX_THREAD_ID=bench")
}

// benchCase is one command line, timed once per iteration.
type benchCase struct {
	name string
	path string
	args []string // args[0] is argv[0]
	env  []string
	code int // the exit status it must end with
	wall []float64
	cpu  []float64 // user + system time of the process and its children, ms
}

// cases returns every case in the order an iteration runs them, and the
// same cases with the builds swapped within each worker case (this tree's
// and the base's `shell 'echo hi'` trade places, and so on): iterations
// alternate the two, so neither build always runs right after the other,
// or after the Python case that leaves the caches cold.
func (e *benchEnv) cases(b *testing.B, builds []benchBuild) (cases, swapped []*benchCase) {
	bash, cat := testenv.NeedTool(b, "bash"), testenv.NeedTool(b, "cat")
	add := func(name, path string, env []string, code int, args ...string) *benchCase {
		c := &benchCase{name: name, path: path, args: args, env: env, code: code}
		cases = append(cases, c)
		return c
	}
	add("bash -c 'echo hi'", bash, e.plain, 0, "bash", "-c", "echo hi")
	floor := buildMain(b, "floor", floorSource)
	add("two Go images (floor)", floor, e.plain, 0, "floor", floor)
	add("bash -c 'cat -n 10k'", bash, e.plain, 0, "bash", "-c", "cat -n 10k.txt")
	add("cat -n 10k", cat, e.plain, 0, "cat", "-n", "10k.txt")
	py := realPython()
	if py != "" {
		add("python3 -c", py, e.plain, 0, "python3", "-c", benchPy)
	}
	swapped = slices.Clone(cases)
	type envs struct{ run, noThread, noRuntime []string }
	per := make([]envs, len(builds))
	for i, bl := range builds {
		env := e.environ
		switch root := os.Getenv("HPATCH_BENCH_BASE_RUNTIME"); {
		case bl.label != "" && root != "":
			env = append(slices.Clone(e.plain), "HPATCH_RUNTIME_DIR="+root, "CODEX_THREAD_ID=bench")
		case bl.label != "":
			env = e.runtimeFor(b, bl.router)
		}
		noThread := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "CODEX_THREAD_ID=") })
		per[i] = envs{env, noThread, append(slices.Clone(noThread), "CODEX_THREAD_ID=no-runtime-here")}
	}
	// kind adds one case per build, plus extra ones, as a group whose
	// order the swapped iterations reverse.
	kind := func(f func(bl benchBuild, env envs) *benchCase, extra ...func() *benchCase) {
		var group []*benchCase
		for i, bl := range builds {
			group = append(group, f(bl, per[i]))
		}
		for _, x := range extra {
			group = append(group, x())
		}
		slices.Reverse(group)
		swapped = append(swapped, group...)
	}
	kind(func(bl benchBuild, env envs) *benchCase {
		return add("shell 'echo hi'"+bl.label, bl.helper, env.run, 0, "shell", "bash", "echo hi")
	}, func() *benchCase {
		return add(secondImage, built.helper, e.runtimeFor(b, buildMain(b, "worker-image", workerImageSource)), 0, "shell", "bash", "echo hi")
	})
	kind(func(bl benchBuild, env envs) *benchCase {
		return add("shell 'hread 10k'"+bl.label, bl.helper, env.run, 0, "shell", "bash", "hread 10k.txt")
	})
	if py != "" {
		kind(func(bl benchBuild, env envs) *benchCase {
			return add("shell python3"+bl.label, bl.helper, env.run, 0, "shell", "python3", benchPy)
		})
	}
	kind(func(bl benchBuild, env envs) *benchCase {
		return add("helper alone"+bl.label, bl.helper, env.noRuntime, 127, "shell", "bash", "echo hi")
	})
	kind(func(bl benchBuild, env envs) *benchCase {
		return add("router start"+bl.label, bl.router, env.noThread, 127, "shell", "bash", "echo hi")
	})
	return cases, swapped
}

// secondImage is the case that runs `shell bash 'echo hi'` with the worker
// image (workerImageSource) as the launcher.
const secondImage = "shell 'echo hi' (worker image)"

func (c *benchCase) once(b *testing.B, e *benchEnv) {
	cmd := exec.Command(c.path, c.args[1:]...)
	cmd.Args[0] = c.args[0]
	cmd.Env, cmd.Dir = c.env, e.dir
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(t0)
	if got := exitCode(err); got != c.code {
		b.Fatalf("%s: exit %d, want %d\n%s", c.name, got, c.code, out)
	}
	c.wall = append(c.wall, ms(d))
	c.cpu = append(c.cpu, ms(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()))
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// benchRatios are the ratios the goal is stated in.
var benchRatios = []struct{ num, den, metric string }{
	{"shell 'echo hi'", "bash -c 'echo hi'", "echo-vs-bash-c"},
	{"shell 'hread 10k'", "bash -c 'cat -n 10k'", "hread-vs-bash-c-cat-n"},
	{"shell 'hread 10k'", "cat -n 10k", "hread-vs-cat-n"},
	{"shell python3", "python3 -c", "python-vs-python-c"},
}

func find(cs []*benchCase, name string) *benchCase {
	for _, c := range cs {
		if c.name == name {
			return c
		}
	}
	return nil
}

func median(v []float64) float64 { return testenv.Quantile(v, 0.5) }

func printTable(cs []*benchCase, builds []benchBuild) {
	fmt.Printf("\n%d interleaved iterations; wall ms: median [p25 p75]; cpu ms: median (user+sys)\n", len(cs[0].wall))
	for _, c := range cs {
		fmt.Printf("  %-31s %7.2f [%6.2f %6.2f]  cpu %6.2f\n", c.name, median(c.wall), testenv.Quantile(c.wall, 0.25), testenv.Quantile(c.wall, 0.75), median(c.cpu))
	}
	fmt.Printf("\nratios: median/median (paired per-iteration ratio: median [p25 p75])\n")
	for _, r := range benchRatios {
		for _, bl := range builds {
			num, den := find(cs, r.num+bl.label), find(cs, r.den)
			if num == nil || den == nil {
				continue
			}
			p := testenv.Paired(num.wall, den.wall)
			fmt.Printf("  %-28s / %-22s %5.2fx  (%5.2fx [%5.2f %5.2f])\n", num.name, den.name,
				median(num.wall)/median(den.wall), median(p), testenv.Quantile(p, 0.25), testenv.Quantile(p, 0.75))
		}
	}
	fmt.Printf("\nshell 'echo hi' breakdown (medians, ms): helper alone = start, root and thread lookup, refusing a thread without a runtime;\nrouter start = the router binary started as a worker, refusing at its first check; rest = whole - both\n")
	for _, bl := range builds {
		whole, helper, start := find(cs, "shell 'echo hi'"+bl.label), find(cs, "helper alone"+bl.label), find(cs, "router start"+bl.label)
		w, h, s := median(whole.wall), median(helper.wall), median(start.wall)
		name := "this tree"
		if bl.label != "" {
			name = "base"
		}
		fmt.Printf("  %-10s whole %5.2f = helper %5.2f + router start %5.2f + rest %5.2f   (cpu: %5.2f = %5.2f + %5.2f + %5.2f)\n",
			name, w, h, s, w-h-s,
			median(whole.cpu), median(helper.cpu), median(start.cpu), median(whole.cpu)-median(helper.cpu)-median(start.cpu))
	}
	floor, bash := find(cs, "two Go images (floor)"), find(cs, "bash -c 'echo hi'")
	fmt.Printf("  floor      two static Go images that do nothing: %5.2f ms = %4.2fx bash -c 'echo hi', before any check or work\n",
		median(floor.wall), median(floor.wall)/median(bash.wall))
	second := find(cs, secondImage)
	fmt.Printf("  2nd image  the same call with a worker-only image as the launcher (not shipped): %5.2f ms = %4.2fx bash -c 'echo hi'\n",
		median(second.wall), median(second.wall)/median(bash.wall))
}
