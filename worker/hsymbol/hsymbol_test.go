//go:build linux

package hsymbol

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/privname"
	"hpatch-router/worker/internal/workspacetest"
	"hpatch-router/worker/privcmd"
)

// serverTimeout replaces the time limit in tests that start real servers: a cold
// gopls or pyright on a loaded two-core CI machine may need more than 30 s,
// and a slow machine is not what these tests are about.
const serverTimeout = 3 * time.Minute

// run is one hsymbol call in a run of its own: its sessions end with it.
func run(ctx context.Context, env *privcmd.Env, args []string, set settings) int {
	sessions := newSessions(set)
	defer sessions.Close()
	return sessions.Run(ctx, env, args)
}

// testEnv is the private command environment of a shell in dir: the test
// process's environment with PATH set to path and m's HOME, XDG_* and
// TMPDIR.
func testEnv(dir string, out, errw *bytes.Buffer, path string, m *machine) *privcmd.Env {
	environ := []string{"PATH=" + path}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			environ = append(environ, kv)
		}
	}
	return &privcmd.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errw, Dir: dir, Environ: m.home.Environ(environ),
		Limits: serverLimits()}
}

// serverLimits are hsymbol's limits with the time limit of a cold server
// on a loaded machine.
func serverLimits() privcmd.Limits {
	l := privcmd.Bounds(privname.Hsymbol)
	l.Time = serverTimeout
	return l
}

// machine is where a test's language server runs: a home where it never
// ran, and the candidate parents of its private directory.
type machine struct {
	home  *testenv.Home
	roots []string
	spare string // read-only machine: the one writable root
}

// writableMachine is a fresh home that can be written, as on a developer's
// machine: the server's cache stays there between runs.
func writableMachine(t *testing.T) *machine {
	h := testenv.FreshHome(t)
	return &machine{home: h, roots: []string{h.Dirs["TMPDIR"]}}
}

// readOnlyMachine is Codex's default read-only sandbox on a machine where
// the server never ran: HOME, XDG_* and TMPDIR cannot be written (they lie
// below a regular file, which stops root as well), and only spare, standing
// in for the sandbox's private /dev/shm, can.
func readOnlyMachine(t *testing.T) *machine {
	blocker := filepath.Join(t.TempDir(), "read-only")
	if err := os.WriteFile(blocker, nil, 0o400); err != nil {
		t.Fatal(err)
	}
	h := testenv.FreshHome(t)
	for name := range h.Dirs {
		h.Dirs[name] = filepath.Join(blocker, strings.ToLower(name))
	}
	h.Dir = h.Dirs["HOME"]
	spare := t.TempDir()
	return &machine{home: h, roots: []string{h.Dirs["TMPDIR"], filepath.Join(blocker, "tmp"), spare}, spare: spare}
}

// settings are Run's places on m; the limits are hsymbol's with the time
// limit of a cold server on a loaded machine.
func (m *machine) settings() settings {
	return settings{tempRoots: m.roots}
}

// runOn runs hsymbol on m with the time limit and output bound given.
func runOn(ctx context.Context, m *machine, env *privcmd.Env, args []string, timeout time.Duration, output int) int {
	env.Limits = privcmd.Bounds("hsymbol")
	env.Limits.Time, env.Limits.Output = timeout, output
	return run(ctx, env, args, m.settings())
}

// checkCleanedUp: nothing of the server's private directory is left.
func (m *machine) checkCleanedUp(t *testing.T) {
	t.Helper()
	dir := m.spare
	if dir == "" {
		dir = m.home.Dirs["TMPDIR"]
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%s still holds %v after the run", dir, entries)
	}
}

func TestHsymbolGo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts gopls")
	}
	testenv.NeedTool(t, "gopls")
	path, writable := os.Getenv("PATH"), writableMachine(t)
	dir := workspacetest.Copy(t)
	tests := []struct {
		name     string
		cwd      string
		readOnly bool // on readOnlyMachine instead of writable
		args     []string
		want     string // exact stdout
	}{
		{name: "def expands to the whole declaration from the outline",
			args: []string{"def", "main.go", "17:f2d0", "NewCounter"},
			want: `"util/util.go":24:08b3 func NewCounter(name string) *Counter {` + "\n" +
				`"util/util.go":25:c2fa 	return &Counter{Name: name, total: Initial}` + "\n" +
				`"util/util.go":26:d10b }` + "\n"},
		{name: "refs: one row per line, sorted by path and line, declaration included",
			args: []string{"refs", "main.go", "18:5817", "Add"},
			want: `"main.go":18:5817 	c.Add(2)` + "\n" + `"main.go":19:4859 	c.Add(3)` + "\n" +
				`"util/util.go":29:d85f func (c *Counter) Add(n int) {` + "\n"},
		{name: "read-only sandbox: def in another package (go list needs a build cache and a work dir)", readOnly: true,
			args: []string{"def", "main.go", "17:f2d0", "NewCounter"},
			want: `"util/util.go":24:08b3 func NewCounter(name string) *Counter {` + "\n" +
				`"util/util.go":25:c2fa 	return &Counter{Name: name, total: Initial}` + "\n" +
				`"util/util.go":26:d10b }` + "\n"},
		{name: "N selects the second occurrence on the row",
			args: []string{"def", "main.go", "21:fb1e", "c", "2"},
			want: `"main.go":17:f2d0 	c := util.NewCounter("hits")` + "\n"},
		{name: "paths are relative to the shell's cwd, even above it", cwd: "util",
			args: []string{"refs", "crlf.go", "5:697e", "Twice"},
			want: `"crlf.go":5:697e func Twice(n int) int {` + "\n"},
		{name: "def outside the workspace is an absolute path",
			args: []string{"def", "main.go", "21:fb1e", "Println"},
			want: "/fmt/print.go\":"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := writable
			if tc.readOnly {
				m = readOnlyMachine(t)
			}
			var out, errb bytes.Buffer
			env := testEnv(filepath.Join(dir, tc.cwd), &out, &errb, path, m)
			code := runOn(t.Context(), m, env, append([]string{"hsymbol"}, tc.args...), serverTimeout, privcmd.HsymbolOutput)
			if code != 0 || errb.Len() != 0 {
				t.Fatalf("exit %d, stderr %q", code, errb.String())
			}
			m.checkCleanedUp(t)
			if !printed(out.String(), tc.want) {
				t.Fatalf("stdout\n%s\nwant\n%s", out.String(), tc.want)
			}
		})
	}
	t.Run("one run: one gopls answers every call as separate runs did", func(t *testing.T) {
		var cases []shared
		for _, tc := range tests {
			if !tc.readOnly {
				cases = append(cases, shared{filepath.Join(dir, tc.cwd), tc.args, tc.want})
			}
		}
		checkSharedRun(t, writable, path, cases, 1)
	})
	t.Run("one run: a file changed between calls is in the next answer", func(t *testing.T) {
		// gopls is not told of changes on disk to files it has not opened:
		// the same server would still answer from what it read first.
		dir := workspacetest.Copy(t)
		refs := []string{"refs", "main.go", "18:5817", "Add"}
		before := `"main.go":18:5817 	c.Add(2)` + "\n" + `"main.go":19:4859 	c.Add(3)` + "\n" +
			`"util/util.go":29:d85f func (c *Counter) Add(n int) {` + "\n"
		added := "func more(c *Counter) { c.Add(9) }"
		pool := newSessions(writable.settings())
		defer pool.Close()
		for i, want := range []string{before, before + `"util/util.go":44:` + hashOf(added) + " " + added + "\n"} {
			if i == 1 {
				appendTo(t, filepath.Join(dir, "util", "util.go"), "\n"+added+"\n")
			}
			var out, errb bytes.Buffer
			code := pool.Run(t.Context(), testEnv(dir, &out, &errb, path, writable), append([]string{"hsymbol"}, refs...))
			if code != 0 || errb.Len() != 0 || out.String() != want {
				t.Fatalf("call %d: exit %d stderr %q stdout\n%s\nwant\n%s", i+1, code, errb.String(), out.String(), want)
			}
		}
	})
	t.Run("cancellation mid-call stops gopls and its go list", func(t *testing.T) {
		m := writableMachine(t) // cold: the call lasts
		var out, errb bytes.Buffer
		env := testEnv(dir, &out, &errb, path, m)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		pool := newSessions(m.settings())
		defer pool.Close()
		done := make(chan int, 1)
		go func() { done <- pool.Run(ctx, env, []string{"hsymbol", "def", "main.go", "17:f2d0", "NewCounter"}) }()
		// Mid-call: gopls runs and has started something in its group (go
		// list loading the workspace into a cold cache).
		var server []int
		for len(server) == 0 || len(groupMembers(server[0])) < 2 {
			select {
			case code := <-done:
				t.Fatalf("the call ended (exit %d, stderr %q) before gopls started anything", code, errb.String())
			case <-time.After(10 * time.Millisecond):
			}
			server = serverChildren(t)
		}
		group := groupMembers(server[0])
		cancel()
		if code := <-done; code != 1 || !strings.Contains(errb.String(), "in time: context canceled") {
			t.Fatalf("exit %d stderr %q", code, errb.String())
		}
		for _, pid := range group {
			gone(t, pid)
		}
		groupGone(t, server[0])
		m.checkCleanedUp(t)
	})
	t.Run("output bound keeps whole rows and says so", func(t *testing.T) {
		var out, errb bytes.Buffer
		env := testEnv(dir, &out, &errb, path, writable)
		code := runOn(t.Context(), writable, env, []string{"hsymbol", "refs", "main.go", "18:5817", "Add"}, serverTimeout, 40)
		if code != privcmd.ExitTruncated || out.String() != `"main.go":18:5817 	c.Add(2)`+"\n" ||
			errb.String() != "hsymbol: output truncated at 40 bytes after 1 rows (no row was cut)\n" {
			t.Fatalf("exit %d stdout %q stderr %q", code, out.String(), errb.String())
		}
	})
	// A writable cache is the server's persistent one, kept for the next run.
	if _, err := os.Stat(filepath.Join(writable.home.Dirs["XDG_CACHE_HOME"], "gopls")); err != nil {
		t.Errorf("gopls's cache was not kept in the writable XDG_CACHE_HOME: %v", err)
	}
}

// printed reports whether stdout is want, or for a want starting with "/"
// (a location outside the workspace, which depends on the machine), one
// absolute row containing it.
func printed(stdout, want string) bool {
	if strings.HasPrefix(want, "/") {
		return strings.HasPrefix(stdout, `"/`) && strings.Contains(stdout, want)
	}
	return stdout == want
}

// shared is one call of a shared run: the shell's cwd, the arguments and
// the exact stdout separate runs print.
type shared struct {
	cwd  string
	args []string
	want string
}

// checkSharedRun makes cases the calls of one run on m and checks that
// each prints what it printed in a run of its own, that servers language
// servers were started for all of them (the test process's children, the
// same ones after every call once all have started) and that the run's
// end leaves none of them, nor anything in their process groups.
func checkSharedRun(t *testing.T, m *machine, path string, cases []shared, servers int) {
	t.Helper()
	pool := newSessions(m.settings())
	defer pool.Close()
	if left := serverChildren(t); len(left) != 0 {
		t.Fatalf("servers of earlier runs still run: %v", left)
	}
	seen := map[int]bool{}
	for i, c := range cases {
		var out, errb bytes.Buffer
		code := pool.Run(t.Context(), testEnv(c.cwd, &out, &errb, path, m), append([]string{"hsymbol"}, c.args...))
		if code != 0 || errb.Len() != 0 || !printed(out.String(), c.want) {
			t.Fatalf("call %d %q: exit %d stderr %q stdout\n%s\nwant\n%s", i+1, c.args, code, errb.String(), out.String(), c.want)
		}
		for _, pid := range serverChildren(t) {
			seen[pid] = true
		}
	}
	running := serverChildren(t)
	if len(seen) != servers || len(running) != servers {
		t.Fatalf("%d language servers started and %d running after %d calls, want %d", len(seen), len(running), len(cases), servers)
	}
	pool.Close()
	for pid := range seen {
		gone(t, pid)
		groupGone(t, pid)
	}
	m.checkCleanedUp(t)
}

func TestHsymbolErrors(t *testing.T) {
	dir := workspacetest.Copy(t)
	workspacetest.SpecialFiles(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte("package big\n"+strings.Repeat("//\n", 3<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	noServers := t.TempDir() // a PATH with no language server
	hang := t.TempDir()
	noGo := t.TempDir() // gopls without the go command it runs
	for _, p := range []string{filepath.Join(hang, "gopls"), filepath.Join(hang, "go"), filepath.Join(noGo, "gopls")} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexec /bin/sleep 30\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		path     string
		args     []string
		code     int
		stderrRE string
	}{
		{name: "stale row is refused before any server starts", path: noServers,
			args: []string{"def", "main.go", "17:0000", "NewCounter"}, code: 1,
			stderrRE: `^hsymbol: row 17:0000 is stale: line 17 is now 17:f2d0; re-read it with hread\n$`},
		{name: "ambiguous symbol names N", path: noServers,
			args: []string{"def", "main.go", "21:fb1e", "c"}, code: 1,
			stderrRE: `^hsymbol: c occurs 2 times on row 21:fb1e; add N \(1\.\.2\)`},
		{name: "symbol not a token on the row", path: noServers,
			args: []string{"def", "main.go", "17:f2d0", "hits"}, code: 1,
			stderrRE: `^hsymbol: hits does not occur as a token on row 17:f2d0\n$`},
		{name: "missing gopls is named", path: noServers,
			args: []string{"def", "main.go", "17:f2d0", "NewCounter"}, code: 127,
			stderrRE: `^hsymbol: gopls \(the go language server\) is not on PATH; install it: go install golang.org/x/tools/gopls@latest\n$`},
		// gopls without go answers every query with "no views".
		{name: "gopls without the go command", path: noGo,
			args: []string{"def", "main.go", "17:f2d0", "NewCounter"}, code: 127,
			stderrRE: `^hsymbol: gopls needs the go command, which is not on PATH; add the directory holding it \(e\.g\. /usr/local/go/bin\) to the PATH Codex runs commands with\n$`},
		{name: "missing pyright is named", path: noServers,
			args: []string{"def", "py/app.py", "19:" + hashOf(`    greeter = Greeter("py")`), "Greeter"}, code: 127,
			stderrRE: `^hsymbol: pyright-langserver \(the python language server\) is not on PATH`},
		{name: "missing typescript-language-server is named", path: noServers,
			args: []string{"refs", "ts/app.ts", "23:" + hashOf(`const c = new Circle(2);`), "Circle"}, code: 127,
			stderrRE: `^hsymbol: typescript-language-server \(the typescript language server\) is not on PATH`},
		{name: "no server for Markdown", path: noServers,
			args: []string{"def", "docs/guide.md", "12:ca85", "Guide"}, code: 2,
			stderrRE: `^hsymbol: no language server for docs/guide.md \(markdown\)`},
		{name: "missing file", path: noServers, args: []string{"def", "nope.go", "1:0000", "x"}, code: 1,
			stderrRE: `^hsymbol: nope.go does not exist`},
		{name: "non-UTF-8 file", path: noServers, args: []string{"def", "text/latin1.txt", "1:0000", "x"}, code: 1,
			stderrRE: `^hsymbol: text/latin1.txt is not UTF-8 text\n$`},
		{name: "FIFO with no writer is refused unopened", path: noServers, args: []string{"def", "fifo", "1:0000", "x"}, code: 1,
			stderrRE: `^hsymbol: fifo is a named pipe, not a regular file; name a source file\n$`},
		{name: "/dev/zero is refused unread", path: noServers, args: []string{"def", "zero", "1:0000", "x"}, code: 1,
			stderrRE: `^hsymbol: zero is a character device, not a regular file; name a source file\n$`},
		{name: "a 1 TiB sparse file is refused unread", path: noServers, args: []string{"def", "sparse", "1:0000", "x"}, code: 1,
			stderrRE: `^hsymbol: sparse is 1099511627776 bytes, over hsymbol's 8 MiB input limit \(a generated file\?\); find the symbol with hgrep -w x sparse\n$`},
		{name: "a source file over the input limit", path: noServers, args: []string{"def", "big.go", "1:0000", "big"}, code: 1,
			stderrRE: `^hsymbol: big.go is 9437196 bytes, over hsymbol's 8 MiB input limit`},
		{name: "usage", path: noServers, args: []string{"def"}, code: 2, stderrRE: `^hsymbol: usage: hsymbol def\|refs PATH LINE:HASH SYMBOL \[N\]\n$`},
		{name: "a server that never answers is bounded in time", path: hang,
			args: []string{"def", "main.go", "17:f2d0", "NewCounter"}, code: 124,
			stderrRE: `^hsymbol: gopls did not answer within the 1s time limit \(a cold server indexes the workspace first\); retry, or find the symbol with hgrep -w NewCounter\n$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			m := writableMachine(t)
			env := testEnv(dir, &out, &errb, tc.path, m)
			code := runOn(context.Background(), m, env, append([]string{"hsymbol"}, tc.args...), time.Second, privcmd.HsymbolOutput)
			if code != tc.code || out.Len() != 0 || !regexp.MustCompile(tc.stderrRE).MatchString(errb.String()) {
				t.Fatalf("exit %d stdout %q stderr %q", code, out.String(), errb.String())
			}
		})
	}
}

// TestHsymbolPythonAndTypeScript runs pyright and typescript-language-server
// (npm install -g pyright typescript-language-server typescript@5), each
// as in Codex's read-only sandbox on a machine where it never ran.
func TestHsymbolPythonAndTypeScript(t *testing.T) {
	if testing.Short() {
		t.Skip("starts language servers")
	}
	dir := workspacetest.Copy(t)
	path := os.Getenv("PATH")
	tests := []struct {
		name   string
		server string
		args   []string
		want   string
	}{
		{name: "Python def: class expanded through the tree-sitter outline", server: "pyright-langserver",
			args: []string{"def", "py/app.py", "19:" + hashOf(`    greeter = Greeter("py")`), "Greeter"},
			want: `"py/app.py":8:bbe1 class Greeter:` + "\n" + `"py/app.py":9:650e     """Greets people."""` + "\n" +
				`"py/app.py":10:e3b0 ` + "\n" + `"py/app.py":11:9e7b     def __init__(self, name: str) -> None:` + "\n" +
				`"py/app.py":12:cb7a         self.name = name` + "\n" + `"py/app.py":13:e3b0 ` + "\n" +
				`"py/app.py":14:24bd     def greet(self, who: str) -> str:` + "\n" +
				`"py/app.py":15:522e         return f"{self.name} greets {who}"  # needle` + "\n"},
		{name: "Python refs: method declaration and call", server: "pyright-langserver",
			args: []string{"refs", "py/app.py", "20:" + hashOf(`    greeter.greet("x")`), "greet"},
			want: `"py/app.py":14:24bd     def greet(self, who: str) -> str:` + "\n" + `"py/app.py":20:d2c6     greeter.greet("x")` + "\n"},
		{name: "TypeScript refs: declaration and call", server: "typescript-language-server",
			args: []string{"refs", "ts/app.ts", "24:" + hashOf(`console.log(total([c]), readFileSync);`), "total"},
			want: `"ts/app.ts":19:b152 export function total(shapes: Shape[]): number {` + "\n" +
				`"ts/app.ts":24:301b console.log(total([c]), readFileSync);` + "\n"},
		{name: "JavaScript def: function expanded", server: "typescript-language-server",
			args: []string{"def", "js/app.js", "21:" + hashOf(`module.exports = { makeStore, arrow, path };`), "makeStore"},
			want: `"js/app.js":15:5f93 function makeStore() {` + "\n" + `"js/app.js":16:e578   return new Store();` + "\n" +
				`"js/app.js":17:d10b }` + "\n"},
	}
	t.Run("one run: one server per language answers every call as separate runs did", func(t *testing.T) {
		var cases []shared
		servers := map[string]bool{}
		for _, tc := range tests {
			testenv.NeedTool(t, tc.server)
			servers[tc.server] = true
			cases = append(cases, shared{dir, tc.args, tc.want})
		}
		checkSharedRun(t, readOnlyMachine(t), path, cases, len(servers))
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testenv.NeedTool(t, tc.server)
			m := readOnlyMachine(t)
			var out, errb bytes.Buffer
			env := testEnv(dir, &out, &errb, path, m)
			code := runOn(t.Context(), m, env, append([]string{"hsymbol"}, tc.args...), serverTimeout, privcmd.HsymbolOutput)
			if code != 0 || errb.Len() != 0 || out.String() != tc.want {
				t.Fatalf("exit %d stderr %q stdout\n%s\nwant\n%s", code, errb.String(), out.String(), tc.want)
			}
			m.checkCleanedUp(t)
		})
	}
}
