package hread

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/worker/privcmd"
)

// OutputLimit is hread's output bound in production.
const OutputLimit = privcmd.HreadOutput

// runIn runs hread in dir with its production limits but an output bound
// of limit bytes.
func runIn(t *testing.T, dir string, scripts *os.Root, limit int, args ...string) (string, string, int) {
	t.Helper()
	l := privcmd.Bounds("hread")
	l.Output = limit
	return runWith(t, dir, scripts, l, args...)
}

func runWith(t *testing.T, dir string, scripts *os.Root, l privcmd.Limits, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &privcmd.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: dir, Scripts: scripts, Limits: l}
	code := Run(context.Background(), env, append([]string{"hread"}, args...))
	return out.String(), errb.String(), code
}

func TestHread(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("abc", "a\nb\nc\n")
	write("mixed", "one\r\ntwo\rthree\nfour")
	write("empty", "")
	write("bin", "ok\n\xff\xfe\n")
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	os.Symlink("loop", filepath.Join(dir, "loop"))
	write("locked", "secret\n")
	os.Chmod(filepath.Join(dir, "locked"), 0)
	cases := []struct {
		name string
		args []string
		out  string
		err  string
		code int
	}{
		{"rows with hashes", []string{"abc"}, "1:ca97 a\n2:3e23 b\n3:2e7d c\n", "", 0},
		{"CRLF, lone CR, no final terminator", []string{"mixed"}, "1:7692 one\n2:3fc4 two\n3:8b5b three\n4:04ef four\n", "", 0},
		{"range", []string{"abc", "2:3"}, "2:3e23 b\n3:2e7d c\n", "", 0},
		{"open end", []string{"abc", "3:"}, "3:2e7d c\n", "", 0},
		{"open start", []string{"abc", ":1"}, "1:ca97 a\n", "", 0},
		{"end past EOF is clamped", []string{"abc", "2:99"}, "2:3e23 b\n3:2e7d c\n", "", 0},
		{"start past EOF", []string{"abc", "4:5"}, "", "start 4 is past the end of abc (3 rows)", 1},
		{"bad range", []string{"abc", "3:2"}, "", "bad range", 2},
		{"zero start", []string{"abc", "0:2"}, "", "bad range", 2},
		{"not a number", []string{"abc", "a:b"}, "", "bad range", 2},
		{"no args", nil, "", "usage: hread PATH", 2},
		{"empty file prints nothing", []string{"empty"}, "", "", 0},
		{"not UTF-8", []string{"bin"}, "", "bin is not UTF-8", 1},
		{"directory", []string{"d"}, "", "d is a directory", 1},
		{"FIFO does not block", []string{"fifo"}, "", "fifo is not a regular file", 1},
		{"missing", []string{"nope"}, "", "nope does not exist; check the path", 1},
		{"symlink loop: the cause, no absolute path", []string{"loop"}, "", "hread: loop cannot be read (too many levels of symbolic links); check the path and its permissions\n", 1},
		{"a path through a file", []string{"abc/x"}, "", "hread: abc/x cannot be read (not a directory); check the path", 1},
		{"absolute path", []string{filepath.Join(dir, "abc"), "1:1"}, "1:ca97 a\n", "", 0},
	}
	if os.Getuid() != 0 { // root reads any file
		cases = append(cases, struct {
			name string
			args []string
			out  string
			err  string
			code int
		}{"permission denied says what to check", []string{"locked"}, "", "hread: locked cannot be read (permission denied); check its permissions", 1})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runIn(t, dir, nil, OutputLimit, c.args...)
			if out != c.out || code != c.code || !strings.Contains(errs, c.err) || (c.err == "" && errs != "") {
				t.Fatalf("got out %q err %q code %d", out, errs, code)
			}
			if errs != "" && (!strings.HasPrefix(errs, "hread: ") || strings.Count(errs, "\n") != 1) {
				t.Fatalf("diagnostic is not one hread line: %q", errs)
			}
		})
	}
}

// The bound never cuts a row; stdout carries rows only, and the notice
// that says where to continue goes to stderr with privcmd.ExitTruncated, so
// a redirect or pipe gets data and a script can tell a cut read.
func TestHreadTruncatesAtRowBoundary(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 100; i++ {
		b.WriteString("line of text\n")
	}
	os.WriteFile(filepath.Join(dir, "f"), []byte(b.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "my notes.md"), []byte(b.String()), 0o644)
	cases := []struct {
		name      string
		limit     int
		args      []string
		rows      int
		notice    string
		code      int
		noticeEnd string
	}{
		{"cut after a complete row, notice on stderr", 100, []string{"f"}, 5, "hread: output truncated after row 5 of 100 (100-byte limit)", privcmd.ExitTruncated, "continue with: hread f 6:100\n"},
		{"a range is continued within the range", 100, []string{"f", "11:20"}, 4, "hread: output truncated after row 14 of 100", privcmd.ExitTruncated, "continue with: hread f 15:20\n"},
		{"a name with a space is quoted to paste back", 100, []string{"my notes.md"}, 5, "hread: output truncated after row 5 of 100", privcmd.ExitTruncated, "continue with: hread 'my notes.md' 6:100\n"},
		{"a row longer than the limit prints nothing", 10, []string{"f"}, 0, "hread: row 1 alone is longer than the 10-byte output limit", 1, "\n"},
		{"within the limit: no notice", 1 << 20, []string{"f"}, 100, "", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runIn(t, dir, nil, c.limit, c.args...)
			rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if out == "" {
				rows = nil
			}
			if code != c.code || len(rows) != c.rows {
				t.Fatalf("exit %d with %d rows, want %d with %d; stdout %q stderr %q", code, len(rows), c.code, c.rows, out, errs)
			}
			for _, l := range rows {
				if !strings.HasSuffix(l, " line of text") {
					t.Fatalf("stdout holds more than rows: %q", l)
				}
			}
			if !strings.HasPrefix(errs, c.notice) || !strings.HasSuffix(errs, c.noticeEnd) || strings.Count(errs, "\n") > 1 {
				t.Fatalf("stderr %q, want one line %q…%q", errs, c.notice, c.noticeEnd)
			}
		})
	}
}

// hread @shell/<id> accepts exactly what the store's reader accepts
// (retain.ReadRef): each case below would print rows if hread opened the
// name itself (a symlink to a file inside the root, a hard link, a
// temporary file, the reserved link's name).
func TestHreadReference(t *testing.T) {
	dir := t.TempDir()
	scripts := filepath.Join(dir, "scripts")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(scripts, 0o700))
	must(os.WriteFile(filepath.Join(scripts, "call_1"), []byte("echo hi\n"), 0o600))
	must(os.WriteFile(filepath.Join(scripts, "linked"), []byte("echo linked\n"), 0o600))
	must(os.Link(filepath.Join(scripts, "linked"), filepath.Join(dir, "elsewhere")))
	must(os.WriteFile(filepath.Join(scripts, ".hpatch-tmp-abc"), []byte("partial\n"), 0o600))
	must(os.WriteFile(filepath.Join(scripts, "latin1"), []byte("caf\xe9\n"), 0o600))
	must(os.WriteFile(filepath.Join(scripts, ".runtime"), []byte("not a script\n"), 0o600))
	must(os.WriteFile(filepath.Join(dir, ".runtime"), []byte("launcher\n"), 0o600))
	must(os.Symlink("../.runtime", filepath.Join(scripts, "up")))
	must(os.Symlink("call_1", filepath.Join(scripts, "inside")))
	must(os.Mkdir(filepath.Join(scripts, "sub"), 0o700))
	must(syscall.Mkfifo(filepath.Join(scripts, "fifo"), 0o600))
	root, err := os.OpenRoot(scripts)
	must(err)
	defer root.Close()
	cases := []struct{ ref, out, err string }{
		{"@shell/call_1", "1:56a7 echo hi\n", ""},
		{"@shell/call_1", "1:56a7 echo hi\n", ""},
		{"@shell/.runtime", "", "reserved for the runtime launcher"},
		{"@shell/..", "", "is not a filename"},
		{"@shell/a/../call_1", "", "contains a path separator"},
		{"@shell/up", "", "@shell/up is a symlink"},
		{"@shell/inside", "", "@shell/inside is a symlink"},
		{"@shell/linked", "", "has 2 hard links"},
		{"@shell/.hpatch-tmp-abc", "", "the store's temporary files"},
		{"@shell/latin1", "", "not valid UTF-8"},
		{"@shell/sub", "", "@shell/sub is not a regular file"},
		{"@shell/fifo", "", "@shell/fifo is not a regular file"},
		{"@shell/gone", "", "@shell/gone does not exist in this thread"},
		{"@shell/", "", "id is empty"},
	}
	for _, c := range cases {
		out, errs, code := runIn(t, dir, root, OutputLimit, c.ref)
		if out != c.out || !strings.Contains(errs, c.err) || (c.err == "") != (code == 0) {
			t.Errorf("%s: out %q err %q code %d", c.ref, out, errs, code)
		}
		if c.err != "" && (!strings.HasPrefix(errs, "hread: ") || strings.Contains(errs, "retain:") || strings.Count(errs, "\n") != 1) {
			t.Errorf("%s: diagnostic is not one hread line: %q", c.ref, errs)
		}
	}
	if out, _, code := runIn(t, dir, root, OutputLimit, "@shell/call_1", "1:1"); out != "1:56a7 echo hi\n" || code != 0 {
		t.Errorf("range on a reference: %q %d", out, code)
	}
	if _, errs, code := runIn(t, dir, nil, OutputLimit, "@shell/call_1"); code != 1 || !strings.Contains(errs, "no retained scripts") {
		t.Errorf("without a store: %q %d", errs, code)
	}
}
