package main

// End-to-end tests with the real Codex CLI: Codex → hpatch-router (built
// from this tree, run as a subprocess) → routertest fake upstream playing a
// scenario from testdata/scenarios/e2e. Codex executes the carriers through
// the real `shell` helper and router worker, both built into a temporary
// directory that is put first on Codex's PATH.
//
// Codex is found through HPATCH_CODEX_BIN, then the CI install path, then
// `codex` on PATH. Without it the tests skip, except under CI=true where
// they fail. `go test -short` skips them. Every Codex run and router gets a
// fresh HOME, XDG_* and TMPDIR (codexEnv). TestE2ECodexVersions runs the
// core scenarios against every version in testdata/e2e/codex-versions.txt.
//
//	go test ./cmd/hpatch-router -run 'TestE2E' -v      # all, with outputs logged
//	go test ./cmd/hpatch-router -run 'TestE2E$/yield'  # one scenario file
//
// Adding a case: drop a JSON file into testdata/scenarios/e2e (format:
// e2eCase — a routertest.Scenario plus prompt, config, codex/router args,
// workspace files and expectations). Every case also gets the shared
// checks: request 0 carries `shell` beside the exec owner and no
// tools.exec_command (checkRewrittenTools), and every model shell/hpatch
// call comes back byte-exactly in each later request (checkReplay).
// Flows that need several Codex runs or a router restart are Go tests
// built from the same pieces: startRouter, writeCodexHome/
// writeCodexConfig, workspace, runCodex, checkCallOutput.

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/access/accesstest"
)

// ciCodexPath is where CI installs @openai/codex@0.169.0.
const ciCodexPath = "/opt/hpatch-ci/codex/node_modules/.bin/codex"

// e2eBinaries builds hpatch-router and the shell helper once per test
// binary, on first use, into a directory TestMain removes.
type e2eBinaries struct {
	dir  string
	once sync.Once
	err  error
}

// e2eBins is set once by TestMain before any test runs.
var e2eBins *e2eBinaries

// e2eParallel is how many parallel tests run at once unless -parallel is
// given (the default is GOMAXPROCS, 2 on a 2-core machine). An e2e case
// mostly waits (Codex starting, its sandbox, the fake upstream). Measured
// on a 2-core machine shared with other work, the e2e tests with the
// version matrix took 37–47 s at 2, 35–39 s at 4 and 43 s at 6: beyond 4
// they only compete for the CPU, and cold language servers get closer to
// Codex's yield window.
const e2eParallel = 4

func TestMain(m *testing.M) {
	accesstest.Main() // a copy of this binary acting as another user's client
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", strconv.Itoa(max(e2eParallel, runtime.GOMAXPROCS(0))))
	}
	if err := keepSharedTmpAgents(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "hpatch-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
		os.Exit(1)
	}
	e2eBins = &e2eBinaries{dir: dir}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// keepSharedTmpAgents makes /tmp/.agents exist before any Codex runs. In
// workspace-write mode Codex makes .agents, .codex and .git read-only below
// every writable root, /tmp among them; one that is missing it creates on
// the host for the command and removes afterwards. Two sandboxes that
// start at once, as parallel tests' do, race on /tmp/.agents ("bwrap:
// Can't remount readonly on /newroot/tmp/.agents: Unable to find ... in
// mount table": one removed what the other was binding). A directory that
// is there already Codex binds and leaves alone. It is left for the next
// run: removing it could start the race for a Codex still running.
func keepSharedTmpAgents() error {
	err := os.Mkdir("/tmp/.agents", 0o755)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("cannot make /tmp/.agents, which keeps parallel Codex sandboxes from racing on it: %w", err)
	}
	return nil
}

// binDir returns the directory holding the freshly built `hpatch-router`
// and `shell`, building them on the first call.
func (b *e2eBinaries) binDir(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		for _, target := range []struct{ out, pkg string }{
			{"hpatch-router", "hpatch-router/cmd/hpatch-router"},
			{"shell", "hpatch-router/cmd/shell-helper"},
			// `recapture mini-mcp` is a one-tool MCP server for tests that
			// change Codex's tool set; it lives outside Codex's PATH.
			{"tools/recapture", "hpatch-router/router/routertest/cmd/recapture"},
		} {
			if b.err = testenv.Build(filepath.Join(b.dir, target.out), target.pkg); b.err != nil {
				return
			}
		}
	})
	if b.err != nil {
		t.Fatalf("e2e: %v", b.err)
	}
	return b.dir
}

// codexBin finds the real Codex CLI: $HPATCH_CODEX_BIN (which must
// exist when set; set and empty means none), the CI install, or `codex`
// on PATH; without one the test skips (fails under CI=true).
func codexBin(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: skipped with -short")
	}
	p, set := os.LookupEnv("HPATCH_CODEX_BIN")
	if set && p == "" {
		testenv.Missing(t, "Codex", "HPATCH_CODEX_BIN is set and empty: the tests run as on a machine without Codex")
	}
	if p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("e2e: HPATCH_CODEX_BIN: %v", err)
		}
		return p
	}
	if _, err := os.Stat(ciCodexPath); err == nil {
		return ciCodexPath
	}
	p, err := exec.LookPath("codex")
	if err != nil {
		testenv.Missing(t, "Codex", "the real Codex CLI: set HPATCH_CODEX_BIN, install it at %s (.ci/run), or put codex on PATH", ciCodexPath)
	}
	return p
}

// repoPath returns an absolute path under the repository root.
func repoPath(t testing.TB, rel ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"..", ".."}, rel...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
