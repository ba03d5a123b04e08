package worker_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// A1/A3/A9: the body comes from /dev/fd/3 while stdin stays program data.
func TestInterpreterBodyOnFd3StdinIsData(t *testing.T) {
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
	e := newEnv(t)
	r := e.run("", "python3", "import sys\nprint('o')\nprint('e', file=sys.stderr)\nsys.exit(7)\n")
	if r.stdout != "o\n" || r.stderr != "e\n" || r.code != 7 {
		t.Fatalf("got %+v", r)
	}
}

func TestInterpreterMissing(t *testing.T) {
	e := newEnv(t)
	refused(t, e.run("", "python9-no-such", "print(1)"), 127, "was not found in PATH")
	refused(t, e.run("", "/no/such/interpreter", "print(1)"), 127, "was not found")
}

// Node runs a body from /dev/fd/3 (it would otherwise try to resolve the
// descriptor's real path) with stdin as data.
func TestInterpreterNode(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	e := newEnv(t)
	r := e.run("data\n", "node", "const fs = require('fs');\nconsole.log('node', fs.readFileSync(0, 'utf8').trim(), process.argv[1]);\n")
	if r.stdout != "node data /dev/fd/3\n" || r.code != 0 {
		t.Fatalf("got %+v", r)
	}
}
