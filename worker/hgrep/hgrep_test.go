package hgrep

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/rows"
	"hpatch-router/worker/internal/workspacetest"
	"hpatch-router/worker/privcmd"
)

var rowRE = regexp.MustCompile(`^("(?:[^"\\]|\\.)*"):(\d+):([0-9a-f]{4}) (.*)$`)

// checkRows proves every stdout line is a whole row whose hash and text
// match row LINE of the file under dir, by the project's row rule.
func checkRows(t *testing.T, dir, stdout string) []string {
	t.Helper()
	var keys []string
	seen := map[string]bool{}
	files := map[string][]rows.Row{}
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if l == "" {
			continue
		}
		m := rowRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("not a row: %q", l)
		}
		path, err := strconv.Unquote(m[1])
		if err != nil {
			t.Fatalf("path %s: %v", m[1], err)
		}
		num, _ := strconv.Atoi(m[2])
		fileRows, ok := files[path]
		if !ok {
			data, err := os.ReadFile(filepath.Join(dir, path))
			if err != nil {
				t.Fatal(err)
			}
			fileRows = rows.Split(data)
			files[path] = fileRows
		}
		if num < 1 || num > len(fileRows) {
			t.Fatalf("row %q: line %d out of range", l, num)
		}
		r := fileRows[num-1]
		if r.Cite() != m[2]+":"+m[3] || string(r.Text) != m[4] {
			t.Fatalf("row %q does not match the file: want %s %q", l, r.Cite(), r.Text)
		}
		key := path + ":" + m[2]
		if seen[key] {
			t.Fatalf("row %s printed twice", key)
		}
		seen[key] = true
		keys = append(keys, path+":"+m[2])
	}
	return keys
}

func TestRun(t *testing.T) {
	dir := workspacetest.Copy(t)
	tests := []struct {
		name     string
		args     []string
		code     int
		want     []string // PATH:LINE keys that must appear, in this order
		notWant  []string
		stderrRE string // stderr must match (empty: stderr must be empty)
	}{
		{name: "default path is . with ./ stripped", args: []string{"needle", "-g", "*.md"},
			want: []string{"docs/crlf.md:3"}, notWant: []string{"./docs/crlf.md:3"}},
		{name: "explicit path keeps rg's spelling", args: []string{"Twice", "./util"},
			want: []string{"./util/crlf.go:4", "./util/crlf.go:5"}},
		{name: "CRLF line: hash over text without CR", args: []string{"needle crlf", "util"},
			want: []string{"util/crlf.go:6"}},
		{name: "lone CR: rows numbered by the row rule", args: []string{"fourth", "text/lonecr.txt"},
			want: []string{"text/lonecr.txt:4"}},
		{name: "lone CR: every row of rg's line is shown", args: []string{"second", "text/lonecr.txt"},
			want: []string{"text/lonecr.txt:1", "text/lonecr.txt:2", "text/lonecr.txt:3"}},
		{name: "final line without terminator", args: []string{"terminator", "text/noeol.txt"},
			want: []string{"text/noeol.txt:2"}},
		{name: "non-UTF-8 line skipped with one warning", args: []string{"needle", "text/latin1.txt"},
			want: []string{"text/latin1.txt:2"}, notWant: []string{"text/latin1.txt:1"},
			stderrRE: `^hgrep: skipped 1 line\(s\) not valid UTF-8: they cannot be cited as rows\n$`},
		{name: "binary data is never a row", args: []string{"needle", "text/nul.bin"},
			notWant: []string{"text/nul.bin:1"}, stderrRE: `^hgrep: skipped .*\n$`},
		{name: "symlinks not followed by default", args: []string{"Version is printed"},
			want: []string{"main.go:11"}, notWant: []string{"_links/main.go:11"}},
		{name: "symlinks followed with -L", args: []string{"-L", "--sort", "path", "Version is printed"},
			want: []string{"_links/main.go:11", "main.go:11"}},
		{name: "explicit symlink path is searched", args: []string{"Greeting greets", "_linkdir/util.go"},
			want: []string{"_linkdir/util.go:39"}},
		{name: "context lines in first-seen order", args: []string{"-C", "1", "func Twice", "util/crlf.go"},
			want: []string{"util/crlf.go:4", "util/crlf.go:5", "util/crlf.go:6"}},
		{name: "overlapping context gives one row per line", args: []string{"-A2", "-e", "c.Add", "main.go"},
			want: []string{"main.go:18", "main.go:19", "main.go:20", "main.go:21"}},
		{name: "-R is a no-op", args: []string{"-R", "LIMIT = 10", "py"}, want: []string{"py/app.py:5"}},
		{name: "no match is success with no rows", args: []string{"no such text anywhere"}},
		{name: "presentation options ignored with one warning", args: []string{"-n", "-c", "--color=always", "-n", "LIMIT = 10", "py"},
			want:     []string{"py/app.py:5"},
			stderrRE: `^hgrep: ignored --color -c -n: hgrep always prints rows "PATH":LINE:HASH TEXT for matching and context lines\n$`},
		{name: "--multiline rejected", args: []string{"--multiline", "a"}, code: 2,
			stderrRE: `^hgrep: --multiline changes what a line is.*\n$`},
		{name: "--encoding rejected", args: []string{"-E", "latin1", "a"}, code: 2, stderrRE: `^hgrep: -E transcodes`},
		{name: "stdin path rejected", args: []string{"a", "-"}, code: 2, stderrRE: `^hgrep: path - would search standard input`},
		{name: "bad regex relays rg's error with exit 2", args: []string{"a("}, code: 2, stderrRE: `^hgrep: regex parse error: [^\n]*unclosed group\n$`},
		{name: "missing path exits 2", args: []string{"needle", "no/such/dir"}, code: 2, stderrRE: `(?m)^hgrep: no/such/dir`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := hgrepIn(t, dir, append([]string{"hgrep"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, errOut)
			}
			if tc.stderrRE == "" && errOut != "" {
				t.Fatalf("unexpected stderr %q", errOut)
			}
			if tc.stderrRE != "" && !regexp.MustCompile(tc.stderrRE).MatchString(errOut) {
				t.Fatalf("stderr %q does not match %s", errOut, tc.stderrRE)
			}
			keys := checkRows(t, dir, out)
			at := 0
			for _, w := range tc.want {
				i := indexFrom(keys, w, at)
				if i < 0 {
					t.Fatalf("missing row %s (in order) in %q", w, out)
				}
				at = i + 1
			}
			for _, nw := range tc.notWant {
				if indexFrom(keys, nw, 0) >= 0 {
					t.Fatalf("unexpected row %s in %q", nw, out)
				}
			}
		})
	}
}

// A UTF-8 byte order mark belongs to the first row (rows.Split keeps it,
// and hread shows it): rg must search the file's bytes as they are, or it
// strips the mark and its first line no longer matches the file, and the
// match is dropped as if the file had changed. --no-encoding, which would
// turn rg's stripping back on, changes nothing.
func TestRunByteOrderMark(t *testing.T) {
	dir := workspacetest.Copy(t)
	if err := os.WriteFile(filepath.Join(dir, "bom.txt"), []byte("\ufeffneedle first\nneedle second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"needle", "bom.txt"}, {"--no-encoding", "needle", "bom.txt"}} {
		out, errOut, code := hgrepIn(t, dir, append([]string{"hgrep"}, args...)...)
		keys := checkRows(t, dir, out)
		if code != 0 || errOut != "" || strings.Join(keys, " ") != "bom.txt:1 bom.txt:2" {
			t.Errorf("%q: exit %d, rows %v, stderr %q; want rows 1 and 2 and no stderr", args, code, keys, errOut)
		}
	}
}

func indexFrom(keys []string, k string, from int) int {
	for i := from; i < len(keys); i++ {
		if keys[i] == k {
			return i
		}
	}
	return -1
}

func TestRunRelativeToEnvDirNotProcessCwd(t *testing.T) {
	dir := workspacetest.Copy(t)
	out, _, code := hgrepIn(t, filepath.Join(dir, "util"), "hgrep", "func Twice")
	if code != 0 || !strings.HasPrefix(out, `"crlf.go":5:`) {
		t.Fatalf("exit %d, out %q", code, out)
	}
}

func TestRunMissingRipgrepNamesIt(t *testing.T) {
	dir := workspacetest.Copy(t)
	var out, errb strings.Builder
	env := newEnv(dir, &out, &errb, []string{"PATH=" + t.TempDir()})
	code := Run(t.Context(), env, []string{"hgrep", "x"})
	if code != 127 || !strings.Contains(errb.String(), "ripgrep") || strings.Count(errb.String(), "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

func TestRunHugeOutputHitsBoundWithoutCuttingARow(t *testing.T) {
	dir := workspacetest.Copy(t)
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "needle row %06d with some padding text\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "huge.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := hgrepIn(t, dir, "hgrep", "needle row", "huge.txt")
	if code != privcmd.ExitTruncated {
		t.Fatalf("exit %d, want %d (cut): %s", code, privcmd.ExitTruncated, errOut)
	}
	if len(out) > privcmd.HgrepOutput || len(out) < privcmd.HgrepOutput-200 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("output %d bytes, want just under %d ending in a whole row", len(out), privcmd.HgrepOutput)
	}
	keys := checkRows(t, dir, out)
	want := fmt.Sprintf("hgrep: output truncated at %d bytes after %d rows (no row was cut); narrow the pattern or the paths\n", privcmd.HgrepOutput, len(keys))
	if errOut != want {
		t.Fatalf("stderr %q, want %q", errOut, want)
	}
}

func TestRunReaderGoneStopsQuietly(t *testing.T) {
	testenv.NeedTool(t, "rg")
	dir := workspacetest.Copy(t)
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "needle %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "many.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go func() { // like head -1: read a little, then close
		buf := make([]byte, 10)
		_, _ = pr.Read(buf)
		_ = pr.Close()
	}()
	var errb strings.Builder
	env := newEnv(dir, pw, &errb, os.Environ())
	if code := Run(t.Context(), env, []string{"hgrep", "needle", "many.txt"}); code != 141 || errb.Len() != 0 {
		t.Fatalf("exit %d stderr %q", code, errb.String())
	}
}

func TestRunEveryRowVerifiesOnARealTree(t *testing.T) {
	src := filepath.Join(runtime.GOROOT(), "src", "strings")
	if _, err := os.Stat(src); err != nil {
		t.Skip("no GOROOT/src/strings")
	}
	out, errOut, code := hgrepIn(t, src, "hgrep", "-C2", `func \w+\(`)
	if !(code == 0 && errOut == "" || code == privcmd.ExitTruncated && strings.HasPrefix(errOut, "hgrep: output truncated at")) {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	if keys := checkRows(t, src, out); len(keys) < 200 {
		t.Fatalf("only %d rows", len(keys))
	}
}

func TestRunNonUTF8FileNameIsSkippedWithAWarning(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad\xff.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Skip("file system refuses non-UTF-8 names")
	}
	if err := os.WriteFile(filepath.Join(dir, "good.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := hgrepIn(t, dir, "hgrep", "needle")
	if code != 0 || out != `"good.txt":1:`+rows.Hash([]byte("needle"))+" needle\n" ||
		errOut != "hgrep: skipped 1 file(s) whose names are not UTF-8: they cannot be cited as rows\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// hgrepIn runs hgrep in dir and returns stdout, stderr and the status;
// hgrep needs rg on PATH.
func hgrepIn(t testing.TB, dir string, args ...string) (string, string, int) {
	t.Helper()
	testenv.NeedTool(t, "rg")
	return workspacetest.Run(t, Run, dir, args...)
}
