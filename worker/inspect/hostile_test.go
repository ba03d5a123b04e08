package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hpatch-router/rows"
	"hpatch-router/worker/internal/workspacetest"
	"hpatch-router/worker/privcmd"
)

// hostile returns deeply nested files for every parser path, each far
// over the depth limit: 100,000 levels (the JSON walker skips deep values
// without recursion, so JSON is outlined instead of refused).
func hostile() map[string]string {
	const n = 100_000
	return map[string]string{
		"quote.md":       strings.Repeat(">", n) + " x\n",
		"list.md":        strings.Repeat("- ", n) + "x\n",
		"olist.md":       strings.Repeat("1. ", n) + "x\n",
		"links.md":       strings.Repeat("[a](", n) + "\n",
		"front.md":       "---\na: " + strings.Repeat("[", n) + "\n---\n# h\n",
		"deep.go":        "package p\nvar x = " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "\n",
		"deep.py":        "x = " + strings.Repeat("(", n) + "\n",
		"deep.js":        "x = " + strings.Repeat("[", n) + "\n",
		"deep.ts":        "let x = " + strings.Repeat("{a:", n) + "\n",
		"deep.tsx":       "const x = " + strings.Repeat("<a>{", n) + "\n",
		"deep-ok.json":   strings.Repeat("[", 10*n) + strings.Repeat("]", 10*n) + "\n",
		"nested-ok.json": strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n),
	}
}

// Deep nesting is refused by the pre-scan with one notice, before any
// parser runs; JSON is outlined whatever its depth.
func TestInspectDeepNesting(t *testing.T) {
	dir := t.TempDir()
	for name, data := range hostile() {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name := range hostile() {
		t.Run(name, func(t *testing.T) {
			if strings.HasSuffix(name, "-ok.json") {
				env, out, code := inspectWith(t, patientRun, dir, name)
				if code != env.okStatus() || !env.OK || !env.Data.ParseComplete {
					t.Fatalf("exit %d: %.300s", code, out)
				}
				return
			}
			env, out, code := inspect(t, dir, name)
			row := 1
			if name == "front.md" || name == "deep.go" {
				row = 2
			}
			want := fmt.Sprintf("inspect_file: %s nests 100000 levels deep (row %d), over the 256-level limit; read it in parts with hread %s START:END", name, row, name)
			if name == "links.md" || name == "front.md" || name == "deep.tsx" {
				want = "" // counted differently; the code is what matters
			}
			if code != 1 || env.OK || env.Error.Code != CodeDepthLimit || want != "" && env.Error.Message != want {
				t.Fatalf("exit %d: %s", code, out)
			}
		})
	}
}

// Files that are not files, are too big, or are not text are refused
// without being read; none of them may block.
func TestInspectHostileFiles(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	workspacetest.SpecialFiles(t, dir)
	random := make([]byte, 1<<20)
	for i := range random {
		random[i] = byte(i*7919 + i>>8)
	}
	must(os.WriteFile(filepath.Join(dir, "binary.py"), random, 0o644))
	must(os.WriteFile(filepath.Join(dir, "invalid.md"), []byte("# ok\n\xc3\x28 not UTF-8\n"), 0o644))
	must(os.Symlink("loop2", filepath.Join(dir, "loop1")))
	must(os.Symlink("loop1", filepath.Join(dir, "loop2")))
	must(os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644))
	tests := []struct{ path, code, message string }{
		{"loop1", CodeUnreadable, "inspect_file: loop1 cannot be read (too many levels of symbolic links); check the path and its permissions"},
		{"plain/x.go", CodeUnreadable, "inspect_file: plain/x.go cannot be read (not a directory); check the path and its permissions"},
		{"fifo", CodeNotRegular, "inspect_file: fifo is a named pipe, not a regular file; name a file"},
		{"sock", CodeNotRegular, "inspect_file: sock is a socket, not a regular file; name a file"},
		{"zero", CodeNotRegular, "inspect_file: zero is a character device, not a regular file; name a file"},
		{"/dev/zero", CodeNotRegular, "inspect_file: /dev/zero is a character device, not a regular file; name a file"},
		{"sparse", CodeInputLimit, "inspect_file: sparse is 1099511627776 bytes, over inspect_file's 8 MiB input limit; read it in parts with hread sparse START:END"},
		{"binary.py", CodeNotUTF8, "inspect_file: binary.py is not UTF-8 text; inspect_file outlines text files only"},
		{"invalid.md", CodeNotUTF8, "inspect_file: invalid.md is not UTF-8 text; inspect_file outlines text files only"},
	}
	if os.Geteuid() != 0 { // root reads a file whatever its mode
		must(os.WriteFile(filepath.Join(dir, "noperm"), nil, 0))
		tests = append(tests, struct{ path, code, message string }{"noperm", CodeUnreadable,
			"inspect_file: noperm cannot be read (permission denied); check the path and its permissions"})
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			env, out, code := inspect(t, dir, tc.path)
			if code != 1 || env.OK || env.Error.Code != tc.code || env.Error.Message != tc.message {
				t.Fatalf("exit %d: %s", code, out)
			}
		})
	}
}

// One 50 MB line through every parser path: each answers within its
// limits (an outline, or a limit's notice), none crashes or hangs.
func TestInspectOneHugeLine(t *testing.T) {
	dir := t.TempDir()
	line := bytes.Repeat([]byte("a"), 50<<20)
	files := map[string][]byte{
		"line.md":   line,
		"line.json": append(append([]byte(`{"k": "`), line...), `"}`...),
		"line.go":   append([]byte("package p\n// "), line...),
		"line.py":   append([]byte("x = '"), append(line, '\'')...),
		"line.ts":   append([]byte("let x = "), line...),
		"line.txt":  line,
	}
	l := privcmd.Bounds("inspect_file")
	l.Input = 64 << 20
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			out, errOut, code := workspacetest.RunWith(t, Run, dir, l, "inspect_file", name)
			var env gotEnvelope
			if err := json.Unmarshal([]byte(out), &env); err != nil || errOut != "" || len(out) > l.Output {
				t.Fatalf("not one bounded envelope: %.300q %q", out, errOut)
			}
			limited := !env.OK && (env.Error.Code == CodeTimeLimit && code == privcmd.ExitTimeLimit || env.Error.Code == CodeMemoryLimit && code == 1)
			if !(code == env.okStatus() && env.OK && env.Data.SizeBytes == len(data) && env.Data.LineCount == len(rows.Split(data))) && !limited {
				t.Fatalf("exit %d: %.300s", code, out)
			}
		})
	}
}

// A parser that runs past the deadline is killed with its process: here
// one that never answers (see TestMain), which would hang the test if it
// were only waited for.
func TestOutlineProcessKilledAtTheDeadline(t *testing.T) {
	l := privcmd.Bounds("inspect_file")
	l.Time = 200 * time.Millisecond
	ctx, cancel := privcmd.WithTimeLimit(context.Background(), l)
	defer cancel()
	_, err := runChild(ctx, stuckLanguage, []byte("x"), l)
	var le *LimitError
	if !errors.As(err, &le) || le.Code != CodeTimeLimit || le.Reason != "took longer than the 200ms time limit to outline" {
		t.Fatalf("err %v", err)
	}
}

// A parser that needs more than the memory limit ends its process, not
// the caller, and the notice names the limit.
func TestOutlineProcessMemoryLimit(t *testing.T) {
	l := privcmd.Bounds("inspect_file")
	l.Memory = 64 << 20
	var b strings.Builder
	for b.Len() < 6<<20 { // goldmark holds about 15 times this
		fmt.Fprintf(&b, "# heading %d\n\n- item\n", b.Len())
	}
	_, err := runChild(context.Background(), "markdown", []byte(b.String()), l)
	var le *LimitError
	if !errors.As(err, &le) || le.Code != CodeMemoryLimit || le.Reason != "needed more than the 64 MiB memory limit to outline" {
		t.Fatalf("err %v", err)
	}
}

// A parser that crashes (the tree-sitter grammars this package used to
// run overflowed their C stack on 100,000 nested objects; crashLanguage
// stands in for any parser bug) takes only its process down, and the
// caller gets an error.
func TestOutlineProcessCrashIsContained(t *testing.T) {
	l := privcmd.Bounds("inspect_file")
	l.Time = 2 * time.Second
	ctx, cancel := privcmd.WithTimeLimit(context.Background(), l)
	defer cancel()
	if _, err := runChild(ctx, crashLanguage, []byte("x"), l); err == nil {
		t.Fatal("no error")
	}
}

// A file that grows while inspect_file reads it is outlined as one
// snapshot: its size, its row count and every citation agree. The
// property is about the snapshot, not speed, so the time limit is a
// minute, not the real 5 s: under -race in CI the race-built outline
// child once took longer than that on a loaded 2-core machine.
func TestInspectGrowingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log.md")
	workspacetest.Grow(t, path, 5_000, func(i int) string { return fmt.Sprintf("# heading %d\ntext %d", i, i) })
	l := privcmd.Bounds("inspect_file")
	l.Time = time.Minute
	for range 5 {
		out, errOut, code := workspacetest.RunWith(t, Run, dir, l, "inspect_file", "log.md")
		var env gotEnvelope
		if err := json.Unmarshal([]byte(out), &env); err != nil || code != env.okStatus() || errOut != "" {
			t.Fatalf("exit %d: %.300q %q", code, out, errOut)
		}
		now, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		snapshot := rows.Split(now[:env.Data.SizeBytes])
		if env.Data.LineCount != len(snapshot) {
			t.Fatalf("line_count %d, the first %d bytes have %d rows", env.Data.LineCount, env.Data.SizeBytes, len(snapshot))
		}
		for _, e := range env.Data.Outline {
			n, _ := strconv.Atoi(strings.Split(e.Line, ":")[0])
			if n < 1 || n > len(snapshot) || snapshot[n-1].Cite() != e.Line {
				t.Fatalf("entry %+v does not cite the snapshot", e)
			}
		}
	}
}

// A file whose parser is still running at the deadline is answered with
// time_limit and exit 124, the status every private command (and
// timeout(1)) gives when time ran out, not 1, which says it failed.
func TestInspectTimeLimitExit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "slow.py"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := privcmd.Bounds("inspect_file")
	l.Time = 200 * time.Millisecond
	stuck := func(ctx context.Context, env *privcmd.Env, args []string) int {
		return runWith(ctx, env, args, func(ctx context.Context, _ string, data []byte, l privcmd.Limits) (Result, error) {
			return runChild(ctx, stuckLanguage, data, l)
		})
	}
	out, errOut, code := workspacetest.RunWith(t, stuck, dir, l, "inspect_file", "slow.py")
	var env gotEnvelope
	if err := json.Unmarshal([]byte(out), &env); err != nil || errOut != "" {
		t.Fatalf("not one envelope: %q %q", out, errOut)
	}
	if code != privcmd.ExitTimeLimit || env.OK || env.Error.Code != CodeTimeLimit ||
		env.Error.Message != "inspect_file: slow.py took longer than the 200ms time limit to outline; read it in parts with hread slow.py START:END" {
		t.Fatalf("exit %d: %s", code, out)
	}
}
