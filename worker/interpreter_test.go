//go:build linux

package worker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
)

// A1/A3/A9: the body comes from /dev/fd/3 while stdin stays program data.
func TestInterpreterBodyOnFd3StdinIsData(t *testing.T) {
	testenv.NeedTool(t, "python3")
	e := newEnv(t)
	body := "import sys, os\nfor line in sys.stdin:\n    print('got', line.strip())\nprint(sys.argv[0], os.readlink('/dev/fd/3').startswith('/memfd:'))\n"
	r := e.run("a\nb\n", "python3", "-u", body)
	want := "got a\ngot b\n/dev/fd/3 True\n"
	if r.stdout != want || r.code != 0 || r.stderr != "" {
		t.Fatalf("got %+v", r)
	}
}

// A8: leading/trailing whitespace and indentation are byte-exact; a body
// near the argv limit (one argv string is at most 128 KiB) is passed whole
// and never echoed.
func TestInterpreterExactLargeBody(t *testing.T) {
	testenv.NeedTool(t, "python3")
	e := newEnv(t)
	pad := strings.Repeat("# "+strings.Repeat("x", 78)+"\n", 1500) // 120 000 bytes
	body := "\n\n  \nimport sys\nsrc = open('/dev/fd/3').read()\nif True:\n\tprint(len(src), src.startswith('\\n\\n  \\n'), src.endswith('x\\n\\n'))\n" + pad + "\n"
	r := e.run("", "python3", body)
	want := fmt.Sprintf("%d True True\n", len(body))
	if r.code != 0 || r.stdout != want || strings.Contains(r.stderr, "xxxx") {
		t.Fatalf("got code %d stdout %q want %q stderr %.200q", r.code, r.stdout, want, r.stderr)
	}
}

func TestInterpreterStatusAndStderr(t *testing.T) {
	testenv.NeedTool(t, "python3")
	e := newEnv(t)
	r := e.run("", "python3", "import sys\nprint('o')\nprint('e', file=sys.stderr)\nsys.exit(7)\n")
	if r.stdout != "o\n" || r.stderr != "e\n" || r.code != 7 {
		t.Fatalf("got %+v", r)
	}
}

// An interpreter that cannot run is refused in one line that names what
// is wrong with it: a bare name is looked up in PATH, a path is taken as
// written, so "not found in PATH" is said only of a bare name.
func TestInterpreterMissing(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	must(t, os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644))
	tests := []struct {
		name, selector string
		code           int
		want, notWant  string
	}{
		{"bare name missing", "python9-no-such", 127, "interpreter python9-no-such was not found in PATH", ""},
		{"path missing", "/no/such/interpreter", 127, "interpreter /no/such/interpreter does not exist", "PATH"},
		{"path is a directory", dir, 126, "interpreter " + dir + " is a directory", "PATH"},
		{"path not executable", plain, 126, "interpreter " + plain + " is not executable", "PATH"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run("", tc.selector, "print(1)")
			refused(t, r, tc.code, tc.want)
			if tc.notWant != "" && strings.Contains(r.stderr, tc.notWant) {
				t.Errorf("stderr %q mentions %s", r.stderr, tc.notWant)
			}
		})
	}
}

// Node runs a body from /dev/fd/3 (it would otherwise try to resolve the
// descriptor's real path) with stdin as data.
func TestInterpreterNode(t *testing.T) {
	testenv.NeedTool(t, "node")
	e := newEnv(t)
	r := e.run("data\n", "node", "const fs = require('fs');\nconsole.log('node', fs.readFileSync(0, 'utf8').trim(), process.argv[1]);\n")
	if r.stdout != "node data /dev/fd/3\n" || r.code != 0 {
		t.Fatalf("got %+v", r)
	}
}

// pythonDir is a directory holding mymod.py, the module a script run from
// there imports.
func pythonDir(t *testing.T) string {
	t.Helper()
	testenv.NeedTool(t, "python3")
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "mymod.py"), []byte("X = 42\n"), 0o644))
	return dir
}

// Guards the Python loader: `python3 /dev/fd/3` puts "/" (the memfd's real
// directory) in sys.path[0], so without the loader `import mymod` from the
// current directory fails with ModuleNotFoundError. The body also runs as
// __main__ with argv[0] and __file__ naming the descriptor, and none of the
// loader's names is left in its globals.
func TestPythonImportsFromCurrentDirectory(t *testing.T) {
	dir := pythonDir(t)
	e := newEnv(t)
	body := "import sys, mymod\nprint(mymod.X, __name__, repr(sys.path[0]), sys.argv, __file__)\n" +
		"print(sorted(k for k in globals() if 'hpatch' in k or k in ('io', 'sys', 'excepthook')))\n"
	cmd := e.command(t.Context(), "python3", body)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	want := "42 __main__ '' ['/dev/fd/3'] /dev/fd/3\n['sys']\n"
	if err != nil || string(out) != want {
		t.Fatalf("got %q (%v), want %q", out, err, want)
	}
}

// Guards the traceback: an uncaught exception names the body's own line
// and shows its text, without the loader's "<string>" frame; a syntax
// error is reported at its line without a traceback (exit 1, like
// `python3 script.py`). Without the excepthook the first frame would be
// the loader's; without the linecache entry the case that closes fd 3 and
// reuses the number for another file would print that file's line.
func TestPythonTracebackNamesBodyLine(t *testing.T) {
	dir := pythonDir(t)
	e := newEnv(t)
	cases := []struct {
		name, body string
		want       []string
	}{
		{"exception", "import sys\n\ndef f():\n    return 1/0  # the culprit\nf()\n",
			[]string{"Traceback (most recent call last):\n  File \"/dev/fd/3\", line 5, in <module>\n", "File \"/dev/fd/3\", line 4, in f\n    return 1/0  # the culprit\n", "ZeroDivisionError"}},
		{"fd 3 reused", "import os\nos.close(3)\nfd = os.open('mymod.py', os.O_RDONLY)\nassert fd == 3\nraise KeyError('k')  # the culprit\n",
			[]string{"File \"/dev/fd/3\", line 5, in <module>\n    raise KeyError('k')  # the culprit\n", "KeyError: 'k'"}},
		{"syntax error", "print('fine')\nx = (\n", []string{"  File \"/dev/fd/3\", line 2\n    x = (\n", "SyntaxError"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := e.command(t.Context(), "python3", c.body)
			cmd.Dir = dir
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			code := exitCode(cmd.Run())
			if code != 1 || out.String() != "" || strings.Contains(errb.String(), "<string>") || strings.Contains(errb.String(), "_hpatch") {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
			}
			for _, w := range c.want {
				if !strings.Contains(errb.String(), w) {
					t.Fatalf("stderr %q lacks %q", errb.String(), w)
				}
			}
			if c.name == "syntax error" && strings.Contains(errb.String(), "Traceback") {
				t.Fatalf("a syntax error has no traceback: %q", errb.String())
			}
		})
	}
}

// Guards the middle fields under the loader: interpreter options before
// -c still apply (-u unbuffered, -O, -W, -X), stdin is still program
// data, and sys.exit's status comes back. A field that changes how Python
// finds or reads the program (-x skips the first line) keeps the plain
// /dev/fd/3 invocation, so it still means what it always meant.
func TestPythonMiddleFieldsApply(t *testing.T) {
	dir := pythonDir(t)
	e := newEnv(t)
	body := "import sys\nprint(sys.stdout.write_through, sys.flags.optimize, sys.warnoptions, sys.flags.utf8_mode, sys.stdin.read().strip())\nsys.exit(4)\n"
	cmd := e.command(t.Context(), "python3", "-u", "-O", "-W", "error::UserWarning", "-Xutf8", body)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader("program data\n")
	out, err := cmd.Output()
	if want := "True 1 ['error::UserWarning'] 1 program data\n"; string(out) != want || exitCode(err) != 4 {
		t.Fatalf("got %q exit %d, want %q exit 4", out, exitCode(err), want)
	}
	r := e.run("", "python3", "-x", "this first line is not Python and is skipped\nprint('second')\n")
	if r.stdout != "second\n" || r.code != 0 {
		t.Fatalf("-x: got %+v", r)
	}
}

// The stdin form of a declared tool (shebang.StdinMarker): the program
// reads the exact input on its standard input, trailing blanks and no
// final newline kept, and gets no script operand.
func TestInterpreterStdinForm(t *testing.T) {
	e := newEnv(t)
	input := "a  \n\tb \nlast  "
	r := e.run("ignored", "<", "sh", "-c", `cat; echo "|$#"`, input)
	if r.code != 0 || r.stdout != input+"|0\n" {
		t.Fatalf("got %+v, want the input then |0", r)
	}
	r = e.run("", "<", input)
	if r.code == 0 || !strings.Contains(r.stderr, "stdin form names no program") {
		t.Fatalf("a marker alone ran: %+v", r)
	}
}
