package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"hpatch-router/hpatch"
	"hpatch-router/rows"
)

// tree is a workspace for one test: files relative to its root.
type tree struct {
	root, outside string
}

func newTree(t *testing.T, files map[string]string) tree {
	t.Helper()
	base := t.TempDir()
	tr := tree{filepath.Join(base, "ws"), filepath.Join(base, "outside")}
	for _, d := range []string{tr.root, tr.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tr.outside, "secret.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		p := filepath.Join(tr.root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func (tr tree) env() Env { return Env{Cwd: tr.root, Roots: []string{tr.root}} }

// citeRE is a citation {path:N} in a test edit.
var citeRE = regexp.MustCompile(`\{([\w./-]+):(\d+)\}`)

// cite replaces {path:N} in edit by row N of that file as hread shows it.
func (tr tree) cite(t *testing.T, edit string) string {
	t.Helper()
	return citeRE.ReplaceAllStringFunc(edit, func(m string) string {
		sub := citeRE.FindStringSubmatch(m)
		data, err := os.ReadFile(filepath.Join(tr.root, sub[1]))
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(sub[2])
		r := rows.Split(data)
		if n < 1 || n > len(r) {
			t.Fatalf("%s has no row %d", sub[1], n)
		}
		return r[n-1].Cite()
	})
}

func resolve(t *testing.T, env Env, edit string) (*Plan, error) {
	t.Helper()
	p, err := hpatch.Parse(edit)
	if err != nil {
		t.Fatalf("hpatch.Parse(%q): %v", edit, err)
	}
	return Resolve(context.Background(), env, p)
}

// The new bytes are exact: line endings, a missing final line ending and
// every untouched byte stay as they were.
func TestResolveBytes(t *testing.T) {
	files := map[string]string{
		"lf.txt":       "a\nb\nc\n",
		"crlf.txt":     "a\r\nb\r\nc\r\n",
		"nofinal":      "a\nb\nc",
		"mixed.txt":    "a\nb\r\nc",
		"cr.txt":       "a\rb\r",
		"sub/x.go":     "package x\n\nfunc F() {}\n",
		"uni.md":       "# Tïtle\n\nbody\n",
		"empty":        "",
		"blank":        "a\n\n",
		"crlf-nofinal": "a\r\nb",
	}
	tests := []struct {
		name, edit string
		file, want string
	}{
		{"LF row replaced", "in lf.txt\ntype {lf.txt:2} \"B\"", "lf.txt", "a\nB\nc\n"},
		{"CRLF rows stay CRLF", "in crlf.txt\ntype {crlf.txt:2} \"B1\\nB2\"\nadd EOF \"d\"", "crlf.txt", "a\r\nB1\r\nB2\r\nc\r\nd\r\n"},
		{"no final newline stays missing on an edit of the last row", "in nofinal\ntype {nofinal:3} \"C\"", "nofinal", "a\nb\nC"},
		{"no final newline stays missing on an edit elsewhere", "in nofinal\ntype {nofinal:1} \"A\"", "nofinal", "A\nb\nc"},
		{"no final newline stays missing on append", "in nofinal\nadd EOF \"d\"", "nofinal", "a\nb\nc\nd"},
		{"mixed endings: a replaced row keeps its own", "in mixed.txt\ntype {mixed.txt:2} \"x\"", "mixed.txt", "a\nx\r\nc"},
		{"CR file stays CR", "in cr.txt\nadd {cr.txt:2} \"x\"", "cr.txt", "a\rx\rb\r"},
		{"text target", "in sub/x.go\ntype \"func F\" \"func G()\"", "sub/x.go", "package x\n\nfunc G()\n"},
		{"absolute path", "in " + "ABS/uni.md\ntype \"body\" \"bödy\"", "uni.md", "# Tïtle\n\nbödy\n"},
		{"two in lines for one file share one baseline", "in lf.txt\ntype {lf.txt:1} \"A\"\nin ./lf.txt\ntype {lf.txt:3} \"C\"", "lf.txt", "A\nb\nC\n"},
		{"rows deleted", "in lf.txt\ntype {lf.txt:1}..{lf.txt:2} \"\"", "lf.txt", "c\n"},
		{"every row deleted", "in lf.txt\ntype {lf.txt:1}..{lf.txt:3} \"\"", "lf.txt", ""},
		{"append to an empty file", "in empty\nadd EOF \"x\"", "empty", "x\n"},
		{"an empty last row keeps its line ending", "in blank\ntype {blank:1} \"A\"", "blank", "A\n\n"},
		{"CRLF without a final line ending: append", "in crlf-nofinal\nadd EOF \"c\"", "crlf-nofinal", "a\r\nb\r\nc"},
		{"CRLF without a final line ending: delete the last row", "in crlf-nofinal\ntype {crlf-nofinal:2} \"\"", "crlf-nofinal", "a\r\n"},
		{"a VALUE with CRLF takes the file's ending", "in lf.txt\ntype {lf.txt:1} \"x\\r\\ny\"", "lf.txt", "x\ny\nb\nc\n"},
	}
	var table strings.Builder
	table.WriteString("| file before | edit | file after |\n| --- | --- | --- |\n")
	defer func() { t.Log("\n" + table.String()) }()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t, files)
			edit := strings.ReplaceAll(tr.cite(t, tc.edit), "ABS", tr.root)
			plan, err := resolve(t, tr.env(), edit)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Files) != 1 || plan.Files[0].Rel != tc.file || plan.Files[0].Action != Rewrite {
				t.Fatalf("files %+v", plan.Files)
			}
			f := plan.Files[0]
			if string(f.New) != tc.want || string(f.Old) != files[tc.file] || f.Mode != 0o644 {
				t.Fatalf("new %q (want %q), old %q, mode %v", f.New, tc.want, f.Old, f.Mode)
			}
			fmt.Fprintf(&table, "| `%s` | `%s` | `%s` |\n", strconv.Quote(files[tc.file]), strings.ReplaceAll(strings.SplitN(edit, "\n", 2)[1], "\n", " ⏎ "), strconv.Quote(tc.want))
		})
	}
}

// A `new` file gets its VALUE as rows (issue 35 item 4): the last row
// ends with the VALUE's line ending, LF unless its rows use CRLF (or CR)
// more; an empty VALUE is an empty file.
func TestResolveNewBytes(t *testing.T) {
	tests := []struct{ value, want string }{
		{`"alpha\nbeta"`, "alpha\nbeta\n"},
		{`"alpha\nbeta\n"`, "alpha\nbeta\n"},
		{`"one row"`, "one row\n"},
		{`"a\r\nb"`, "a\r\nb\r\n"},
		{`"a\n\n"`, "a\n\n"},
		{`""`, ""},
		{"<<PATCH\nalpha\nbeta\nPATCH", "alpha\nbeta\n"},
	}
	var table strings.Builder
	table.WriteString("| edit | file after |\n| --- | --- |\n")
	defer func() { t.Log("\n" + table.String()) }()
	for _, tc := range tests {
		tr := newTree(t, nil)
		edit := "new n.txt\ntype " + tc.value
		plan, err := resolve(t, tr.env(), edit)
		if err != nil {
			t.Fatal(err)
		}
		if f := plan.Files[0]; f.Action != Create || string(f.New) != tc.want {
			t.Errorf("%q: new %q, want %q", edit, f.New, tc.want)
		}
		fmt.Fprintf(&table, "| `%s` | `%s` |\n", strings.ReplaceAll(edit, "\n", " ⏎ "), strconv.Quote(tc.want))
	}
}

func TestResolveFiles(t *testing.T) {
	tr := newTree(t, map[string]string{"a.txt": "one\ntwo\n", "old.txt": "x\n", "m.txt": "m1\nm2\n"})
	plan, err := resolve(t, tr.env(), tr.cite(t, "in a.txt\ntype {a.txt:2} \"TWO\"\nin old.txt\nrm\nnew dir/n.md\ntype \"# N\\r\\nbody\"\nin m.txt\nmv moved/m2.txt\ntype \"m1\" \"M1\"\nin \"a.txt\"\nadd EOF \"three\""))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Action         Action
		Rel, Dest, New string
	}
	var files []got
	for _, f := range plan.Files {
		files = append(files, got{f.Action, f.Rel, f.Dest, string(f.New)})
	}
	want := []got{
		{Rewrite, "a.txt", "", "one\nTWO\nthree\n"},
		{Remove, "old.txt", "", ""},
		{Create, "dir/n.md", "", "# N\r\nbody\r\n"},
		{Rewrite, "m.txt", "moved/m2.txt", "M1\nm2\n"},
	}
	if len(files) != len(want) {
		t.Fatalf("files %+v", files)
	}
	for i := range want {
		if files[i] != want[i] {
			t.Errorf("file %d: got %+v, want %+v", i, files[i], want[i])
		}
	}
	wantReport := "a.txt\n1:" + rows.Hash([]byte("one")) + " one\n2:" + rows.Hash([]byte("TWO")) + " TWO\n3:" + rows.Hash([]byte("three")) + " three\n" +
		"old.txt (removed)\n" +
		"dir/n.md (new)\n1:" + rows.Hash([]byte("# N")) + " # N\n2:" + rows.Hash([]byte("body")) + " body\n" +
		"m.txt -> moved/m2.txt\n1:" + rows.Hash([]byte("M1")) + " M1\n2:" + rows.Hash([]byte("m2")) + " m2\n"
	if plan.Report != wantReport {
		t.Fatalf("report\n%s\nwant\n%s", plan.Report, wantReport)
	}
	// The digest names the baseline: same files, same digest; a changed
	// byte, another digest.
	again, _ := resolve(t, tr.env(), tr.cite(t, "in a.txt\ntype {a.txt:2} \"TWO\"\nin old.txt\nrm\nnew dir/n.md\ntype \"# N\\r\\nbody\"\nin m.txt\nmv moved/m2.txt\ntype \"m1\" \"M1\"\nin \"a.txt\"\nadd EOF \"three\""))
	if again == nil || again.Digest() != plan.Digest() {
		t.Fatal("the same edit on the same files gave another digest")
	}
	os.WriteFile(filepath.Join(tr.root, "old.txt"), []byte("y\n"), 0o644)
	changed, err := resolve(t, tr.env(), "in old.txt\nrm")
	if err != nil || changed.Digest() == plan.Digest() {
		t.Fatalf("digest unchanged after a change (%v)", err)
	}
}

func TestResolveMoveAndNewReports(t *testing.T) {
	tr := newTree(t, map[string]string{"a": "x"})
	plan, err := resolve(t, tr.env(), "in a\nmv b\nnew e\ntype \"\"")
	if err != nil {
		t.Fatal(err)
	}
	if plan.Report != "a -> b\n(moved; content unchanged)\ne (new)\n(empty)\n" || string(plan.Files[0].New) != "x" {
		t.Fatalf("report %q, new %q", plan.Report, plan.Files[0].New)
	}
}

func TestResolveRefuses(t *testing.T) {
	tests := []struct {
		name, edit string
		setup      func(t *testing.T, tr tree)
		env        func(tr tree) Env
		line       int
		want       string
	}{
		{name: "missing file", edit: "in nope.txt\ntype 1:abcd \"x\"", line: 1,
			want: "nope.txt does not exist; check the path with `hread nope.txt` or create it with `new nope.txt`"},
		{name: "stale hash shows the rows around it", edit: "in a.txt\ntype 2:0000 \"x\"", line: 2,
			want: "2:0000 is stale: row 2 of a.txt is now `2:" + rows.Hash([]byte("two")) + " two` (around it: `1:"},
		{name: "row past the end", edit: "in a.txt\nadd 9:0000 \"x\"", line: 2, want: "row 9 is past the end of a.txt (3 rows; the last is `3:"},
		{name: "overlap", edit: "in a.txt\ntype \"two\" \"x\"\ntype {a.txt:1}..{a.txt:2} \"y\"", line: 3, want: "overlap"},
		{name: "COUNT mismatch lists the rows", edit: "in a.txt\ntype \"o\" \"x\"", line: 2, want: "\"o\" matches 2 rows of a.txt, not 1 row: `1:"},
		{name: "absolute path outside", edit: "in /etc/hostname\nrm", line: 1, want: "/etc/hostname is outside the workspace (roots: "},
		{name: "dot-dot out of the root", edit: "in ../outside/secret.txt\nrm", line: 1, want: "outside/secret.txt is outside the workspace"},
		{name: "dot-dot that stays inside is the same file", edit: "in sub/../a.txt\nrm\nin a.txt\nrm", line: 3, want: "a.txt is also named at line 1"},
		{name: "the root itself", edit: "in .\nrm", line: 1, want: "\".\" is the workspace root itself, not a file"},
		{name: "symlink to a file outside", edit: "in link.txt\ntype \"secret\" \"x\"", line: 1,
			setup: func(t *testing.T, tr tree) {
				symlink(t, filepath.Join(tr.outside, "secret.txt"), filepath.Join(tr.root, "link.txt"))
			},
			want: "link.txt is a symlink; hpatch edits the file itself"},
		{name: "symlink to a file inside", edit: "in link.txt\nrm", line: 1,
			setup: func(t *testing.T, tr tree) { symlink(t, "a.txt", filepath.Join(tr.root, "link.txt")) },
			want:  "link.txt is a symlink"},
		{name: "directory symlink out of the root", edit: "in out/secret.txt\ntype \"secret\" \"x\"", line: 1,
			setup: func(t *testing.T, tr tree) { symlink(t, tr.outside, filepath.Join(tr.root, "out")) },
			want:  "out/secret.txt leads out of the workspace root through a symlink; refused"},
		{name: "new through a directory symlink out of the root", edit: "new out/planted.txt\ntype \"x\"", line: 1,
			setup: func(t *testing.T, tr tree) { symlink(t, tr.outside, filepath.Join(tr.root, "out")) },
			want:  "out/planted.txt leads out of the workspace root through a symlink; refused"},
		{name: "mv through a directory symlink out of the root", edit: "in a.txt\nmv out/a.txt", line: 2,
			setup: func(t *testing.T, tr tree) { symlink(t, tr.outside, filepath.Join(tr.root, "out")) },
			want:  "out/a.txt leads out of the workspace root through a symlink; refused"},
		{name: "not UTF-8", edit: "in bin\nrm", line: 1,
			setup: func(t *testing.T, tr tree) { os.WriteFile(filepath.Join(tr.root, "bin"), []byte{0xff, 0xfe}, 0o644) },
			want:  "bin is not UTF-8 text"},
		{name: "directory", edit: "in sub\nrm", line: 1, want: "sub is a directory, not a file"},
		{name: "FIFO is refused without being opened", edit: "in fifo\nrm", line: 1,
			setup: func(t *testing.T, tr tree) {
				if err := syscall.Mkfifo(filepath.Join(tr.root, "fifo"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: "fifo is not a regular file"},
		{name: "too large", edit: "in big\nrm", line: 1,
			setup: func(t *testing.T, tr tree) {
				os.WriteFile(filepath.Join(tr.root, "big"), make([]byte, MaxFileBytes+1), 0o644)
			},
			want: "big is 8388609 bytes; hpatch edits files of at most 8388608 bytes"},
		{name: "new over an existing file", edit: "new a.txt\ntype \"x\"", line: 1, want: "a.txt already exists; edit it with `in` instead of `new`"},
		{name: "new under a file", edit: "new a.txt/x\ntype \"x\"", line: 1, want: "a.txt/x cannot be created: a.txt is not a directory"},
		{name: "mv onto an existing file", edit: "in a.txt\nmv sub/b.txt", line: 2, want: "sub/b.txt already exists; choose a name that does not exist"},
		{name: "mv onto itself", edit: "in a.txt\nmv ./a.txt", line: 2, want: "the destination is the file itself"},
		{name: "mv twice", edit: "in a.txt\nmv x\nin a.txt\nmv y", line: 4, want: "already moved at line 2"},
		{name: "rm and an edit of one file", edit: "in a.txt\nrm\nin a.txt\ntype \"two\" \"x\"", line: 3, want: "a.txt is also named at line 1"},
		{name: "two moves onto one file", edit: "in a.txt\nmv c\nin sub/b.txt\nmv c", line: 4, want: "c is also named at line 2"},
		{name: "mv onto a file the edit also names", edit: "in a.txt\nmv sub/b.txt\nin sub/b.txt\nrm", line: 2, want: "sub/b.txt is also named at line 3"},
		{name: "mv across roots", edit: "in a.txt\nmv OUT/a.txt", line: 2,
			env:  func(tr tree) Env { return Env{Cwd: tr.root, Roots: []string{tr.root, tr.outside}} },
			want: "the destination is in another workspace root"},
		{name: "no workspace root", edit: "in a.txt\nrm", line: 1, env: func(tr tree) Env { return Env{Cwd: tr.root} },
			want: "this turn declares no workspace root, so hpatch cannot edit workspace files"},
		{name: "relative path without a cwd", edit: "in a.txt\nrm", line: 1, env: func(tr tree) Env { return Env{Roots: []string{tr.root}} },
			want: "\"a.txt\" is relative, and this turn declared no absolute cwd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "sub/b.txt": "b\n"})
			if tc.setup != nil {
				tc.setup(t, tr)
			}
			env := tr.env()
			if tc.env != nil {
				env = tc.env(tr)
			}
			edit := strings.ReplaceAll(tr.cite(t, tc.edit), "OUT", tr.outside)
			_, err := resolve(t, env, edit)
			var pe *hpatch.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %T %v, want a *hpatch.Error", err, err)
			}
			if pe.Line != tc.line || !strings.Contains(err.Error(), tc.want) || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("got %q (line %d), want line %d containing %q", err, pe.Line, tc.line, tc.want)
			}
		})
	}
}

// Nested roots: a path belongs to the innermost root that holds it.
func TestLocateInnermostRoot(t *testing.T) {
	env := Env{Cwd: "/w/inner/src", Roots: []string{"/w", "/w/inner/"}}
	got, err := env.locate("../x.go")
	if err != nil || got.root != "/w/inner" || got.rel != "x.go" {
		t.Fatalf("locate = %+v, %v", got, err)
	}
	got, err = env.locate("/w/other/y")
	if err != nil || got.root != "/w" || got.rel != "other/y" {
		t.Fatalf("locate = %+v, %v", got, err)
	}
	if _, err := env.locate("/wx/y"); err == nil {
		t.Fatal("a sibling sharing the root's prefix is inside")
	}
}

func TestResolveScriptEdit(t *testing.T) {
	p, err := hpatch.Parse("in @shell/a\ntype 1:abcd \"x\"")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(context.Background(), Env{Roots: []string{"/"}}, p); err == nil {
		t.Fatal("a script edit resolved as workspace files")
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}
