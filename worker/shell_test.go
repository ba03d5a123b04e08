//go:build linux

package worker_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShellSemantics(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name string
		args []string
		out  string
		code int
		err  string // substring of stderr
	}{
		{"A7: #!bash runs Bash syntax", []string{"bash", "[[ a == a ]] && echo yes; arr=(x y); echo ${arr[1]}"}, "yes\ny\n", 0, ""},
		{"A7: #!sh rejects Bash-only syntax before running", []string{"sh", "echo before\narr=(x y)"}, "", 2, "sh syntax error at line 2"},
		{"A7: #!sh runs POSIX syntax", []string{"sh", "x=1; [ \"$x\" = 1 ] && echo posix"}, "posix\n", 0, ""},
		{"A7: #!sh has no brace expansion (as dash)", []string{"/bin/sh", "echo {1..3} a{b,c}"}, "{1..3} a{b,c}\n", 0, ""},
		{"A7: #!bash expands braces", []string{"bash", "echo {1..3} a{b,c}"}, "1 2 3 ab ac\n", 0, ""},
		{"selector basename rule: /usr/bin/BASH.exe", []string{"/usr/bin/BASH.exe", "[[ 1 ]] && echo b"}, "b\n", 0, ""},
		{"bash parse error is one line, exit 2", []string{"bash", "echo 'unterminated"}, "", 2, "bash syntax error at line 1"},
		{"set -e from a middle field", []string{"bash", "-e", "echo a; false; echo b"}, "a\n", 1, ""},
		{"without -e the script goes on", []string{"bash", "echo a; false; echo b"}, "a\nb\n", 0, ""},
		{"set -u from a middle field", []string{"bash", "-u", "echo \"$nope\"; echo after"}, "", 1, "nope"},
		{"-o pipefail from middle fields", []string{"bash", "-o", "pipefail", "false | true"}, "", 1, ""},
		{"combined -eu", []string{"bash", "-eu", "echo $HOME >/dev/null; false; echo no"}, "", 1, ""},
		{"positional parameters after --", []string{"bash", "-e", "--", "one", "two words", `echo "$#:$1:$2"`}, "2:one:two words\n", 0, ""},
		{"positional parameters without --", []string{"bash", "p1", "p2", `echo "$@"`}, "p1 p2\n", 0, ""},
		{"login flags are ignored", []string{"bash", "-l", "echo ok"}, "ok\n", 0, ""},
		{"bad option is a usage error", []string{"bash", "-q", "echo no"}, "", 2, "invalid option"},
		{"exit status is returned", []string{"bash", "exit 42"}, "", 42, ""},
		{"stderr is kept apart", []string{"bash", "echo out; echo err >&2"}, "out\n", 0, "err\n"},
		{"external command via PATH", []string{"bash", "printf '%s\\n' a b | sort -r | tr -d '\\n'"}, "ba", 0, ""},
		{"missing command is 127", []string{"bash", "no-such-command-xyz"}, "", 127, "command not found"},
		{"no script body is a usage error", []string{"bash"}, "", 2, "want an interpreter and a script body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.run("", c.args...)
			if r.stdout != c.out || r.code != c.code || !strings.Contains(r.stderr, c.err) {
				t.Fatalf("got %+v", r)
			}
			if c.code == 2 && strings.Count(r.stderr, "\n") != 1 {
				t.Fatalf("want one diagnostic line, got %q", r.stderr)
			}
		})
	}
}

// A9: cwd, environment and stdin are inherited; nothing of the body leaks.
func TestShellInheritsContext(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	cmd := e.command(t.Context(), "bash", "pwd; echo \"$MY_VAR\"; env | grep ^MY_VAR=; read -r line; echo \"in:$line\"; cat")
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "MY_VAR=hello")
	cmd.Stdin = strings.NewReader("first\nrest\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := dir + "\nhello\nMY_VAR=hello\nin:first\nrest\n"
	if string(out) != want {
		t.Fatalf("got %q want %q", out, want)
	}
}

func TestPrivateCommandInShell(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "g.txt"), []byte("x\r\ny"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("0123456789\n", 30000)), 0o644)) // over hread's 256 KiB
	cases := []struct {
		name, script, out string
		code              int
	}{
		{"rows", "hread f.txt", "1:8ed3 alpha\n2:f44e beta\n3:be9d gamma\n", 0},
		{"in a pipeline", "hread f.txt | grep -c a; printf 'x\\n' | hread f.txt 2:2 | tr a-z A-Z", "3\n2:F44E BETA\n", 0},
		{"stdout redirection", "hread f.txt 3: > out.txt; echo saved; cat out.txt; rm out.txt", "saved\n3:be9d gamma\n", 0},
		{"stderr redirection and status", "hread nope.txt 2> err.txt; echo \"status $?\"; cat err.txt; rm err.txt", "status 1\nhread: nope.txt does not exist; check the path (relative paths start at the working directory)\n", 0},
		{"cwd of the evaluation", "cd sub && hread g.txt", "1:2d71 x\n2:a1fc y\n", 0},
		{"set -e sees its status", "set -e; hread nope.txt 2>/dev/null; echo not-here", "", 1},
		{"command substitution", "n=$(hread f.txt | wc -l); echo \"$n rows\"", "3 rows\n", 0},
		{"no file by that name on disk", "command -v hread || echo none", "none\n", 0},
		{"a cut read: the redirect gets rows only, the notice and status 3 say so",
			"hread big.txt > copy.txt 2> note.txt; echo \"status $?\"; grep -vc '^[0-9]*:[0-9a-f]\\{4\\} 0123456789$' copy.txt; grep -o 'continue with: hread big.txt [0-9]*:30000' note.txt | wc -l; rm copy.txt note.txt",
			"status 3\n0\n1\n", 0},
		{"a cut read in a pipeline: the last line is a row", "hread big.txt 2>/dev/null | tail -n 1 | sed 's/^[0-9]*:[0-9a-f]* //'", "0123456789\n", 0},
		{"a script without #! runs as Bash", "printf 'echo \"script:$1\"; hread f.txt 1:1\\n' > s; chmod +x s; ./s arg; rm s", "script:arg\n1:8ed3 alpha\n", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := e.command(t.Context(), "bash", c.script)
			cmd.Dir = dir
			out, err := cmd.Output()
			if string(out) != c.out || exitCode(err) != c.code {
				t.Fatalf("got %q exit %d (%v)", out, exitCode(err), err)
			}
		})
	}
}

// hread @shell/<id> in a worker script reads through the store's checks:
// the scripts directory is opened with retain.OpenScriptsIn and each
// reference read with retain.ReadRef, so the reserved link, a path out of
// scripts/, a symlink, a hard link and a scripts directory others can
// write are all refused (each would print rows if the worker opened names
// itself).
func TestHreadRetainedScript(t *testing.T) {
	e := newEnv(t)
	scripts := filepath.Join(e.threadDir(), "scripts")
	must(t, os.WriteFile(filepath.Join(scripts, "call_1"), []byte("#!python3\nprint(1)\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(t.TempDir(), "outside"), []byte("secret\n"), 0o600))
	must(t, os.Symlink("../.runtime", filepath.Join(scripts, "escape")))
	must(t, os.Symlink("call_1", filepath.Join(scripts, "alias")))
	must(t, os.WriteFile(filepath.Join(scripts, "shared"), []byte("x\n"), 0o600))
	must(t, os.Link(filepath.Join(scripts, "shared"), filepath.Join(e.threadDir(), "shared-elsewhere")))
	cases := []struct{ ref, out, err string }{
		{"@shell/call_1", "1:e554 #!python3\n2:d287 print(1)\n", ""},
		{"@shell/.runtime", "", "reserved for the runtime launcher"},
		{"@shell/../.runtime", "", "contains a path separator"},
		{"@shell/escape", "", "is a symlink"},
		{"@shell/alias", "", "is a symlink"},
		{"@shell/shared", "", "has 2 hard links"},
		{"@shell/missing", "", "does not exist in this thread"},
	}
	for _, c := range cases {
		r := e.run("", "bash", "hread "+c.ref)
		if r.stdout != c.out || !strings.Contains(r.stderr, c.err) || (c.err == "") != (r.code == 0) {
			t.Errorf("%s: got %+v", c.ref, r)
		}
	}
	must(t, os.Chmod(scripts, 0o770))
	if r := e.run("", "bash", "hread @shell/call_1"); r.stdout != "" || r.code != 1 || !strings.Contains(r.stderr, "no retained scripts") {
		t.Errorf("group-writable scripts directory: got %+v", r)
	}
}

// Every private command is dispatched in-process (none exists on disk).
func TestPrivateCommandsDispatched(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644))
	for _, name := range []string{"hread", "hgrep", "hsymbol", "inspect_file"} {
		cmd := e.command(t.Context(), "bash", "command -v "+name+" >/dev/null && echo on-disk; "+name+" --no-such-flag-xyz; echo \"status $?\"")
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		if strings.Contains(string(out), "on-disk") || strings.Contains(string(out), "command not found") || !strings.Contains(string(out), "status ") {
			t.Errorf("%s: %q", name, out)
		}
	}
	cmd := e.command(t.Context(), "bash", "inspect_file a.go | head -c 1")
	cmd.Dir = dir
	if out, err := cmd.Output(); err != nil || string(out) != "{" {
		t.Errorf("inspect_file: %q %v", out, err)
	}
}
