package inspect

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"hpatch-router/rows"
	"hpatch-router/worker/privcmd"
)

// checkOutline is what every parser promises for any input: no panic, and
// every entry's rows inside the file and in order.
func checkOutline(t *testing.T, path string, data []byte) {
	res, err := outlineHere(Language(path), data)
	if err != nil {
		return
	}
	n := NewLines(data).Count()
	for _, e := range res.Entries {
		if e.Start < 1 || e.End < e.Start || (n > 0 && e.End > n) {
			t.Fatalf("entry %+v outside rows 1..%d", e, n)
		}
		if !utf8.ValidString(e.Name) && utf8.Valid(data) {
			t.Fatalf("entry name %q is not UTF-8", e.Name)
		}
	}
}

func FuzzOutlineJSON(f *testing.F) {
	f.Add([]byte(`{"a": [1, {"b/c": null}], "d": "x"}`))
	f.Add([]byte("[\r\n1,\r2\n]"))
	f.Add([]byte(`{"a": `))
	f.Add([]byte(`1 2`))
	f.Fuzz(func(t *testing.T, data []byte) { checkOutline(t, "f.json", data) })
}

func FuzzOutlineMarkdown(f *testing.F) {
	f.Add([]byte("---\ntitle: x\nlist:\n  - a\n---\n# H1\ntext\n## H2\r\nSetext\n---\n"))
	f.Add([]byte("---\n: : :\n---\n"))
	f.Add([]byte("#\n\n    # code\n```\n# fenced\n```\n"))
	f.Add([]byte("> # quoted\n- # in list\n"))
	f.Add([]byte("- - - x\n\n  \t# tab\n[a]: /u 't'\n===\n# [a] *b _c_* `d` <e@f.g> <h i=\"j\">\n"))
	f.Add([]byte("---\n? k\n: v\nl:\n- a\nq: \"x\n  y\"\n---\n<!--\n# no\n-->\n~~~\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkOutline(t, "f.md", data) })
}

func FuzzOutlineGo(f *testing.F) {
	f.Add([]byte("package p\nimport \"fmt\"\nfunc (r *T[K]) M() {}\nconst (A = 1; B)\n"))
	f.Add([]byte("package p\rfunc A() {\r}\r"))
	f.Add([]byte("func"))
	f.Fuzz(func(t *testing.T, data []byte) { checkOutline(t, "f.go", data) })
}

func FuzzOutlinePython(f *testing.F) {
	f.Add([]byte("@d\nclass A(B):\n    def m(self): return f'{x!r:>{w}}'\n    # c\n  y = (1,\ndef g():\n\tpass\n"))
	f.Add([]byte("x = '''\n\\\n\ny = f\"{\"'\"}\" rb'\\''; z: int\nfrom .. import (a,\n b) \\\n# c\n"))
	f.Add([]byte("\ufeffdef (:\n[{(\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkOutline(t, "f.py", data) })
}

func FuzzOutlineScript(f *testing.F) {
	f.Add([]byte("import a from 'b'\nexport class A<T> extends B { @d m(): void {} #p = 1; get [k]() {} }\nconst f = () => 1, g = <T,>(x: T) => x\n"), uint8(0))
	f.Add([]byte("let x = a\n/ b / c\nfunction f() { return /re{/.test(`${`${1}`}`) }\nconst j = <div a={1}>it's {x}</div>\n"), uint8(1))
	f.Add([]byte("export default function () {}\ninterface I { m(): void }\ntype T<A> = A | B\nenum E { A }\ndeclare module 'm' {}\n"), uint8(2))
	f.Add([]byte("export(\"\\"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, lang uint8) {
		checkOutline(t, []string{"f.js", "f.ts", "f.tsx"}[lang%3], data)
	})
}

// fuzzExts are the extensions FuzzInspectFile picks from: every parser
// path and a file without one.
var fuzzExts = []string{".md", ".json", ".go", ".py", ".js", ".ts", ".tsx", ".txt"}

// parseHere does the outline process's work in this process: its entry
// filtering (outlineAnswer, which also turns a parser's panic into an
// error), its answer's encoding and runChild's decoding; only the process
// boundary is left out. That boundary and the limits it enforces have
// their own tests, which run the real process (TestOutlineProcess*, and
// TestInspectHostileFiles through Run).
func parseHere(_ context.Context, lang string, data []byte, l privcmd.Limits) (Result, error) {
	return decodeAnswer(encodeAnswer(outlineAnswer(lang, data, l.Output)))
}

// FuzzInspectFile runs the whole command (file read, UTF-8 check, pre-scan,
// outline, wire format, envelope and its bound) under the production
// limits, parsing in-process (parseHere) so an execution costs a parse and
// not the start of an outline process (that made 10 s of fuzzing about
// 800 executions): whatever the bytes, it prints one envelope within the
// output bound that either describes the file exactly (size, rows, every
// citation a row of it) or refuses it with a known code, and no parser
// crashes or panics.
func FuzzInspectFile(f *testing.F) {
	seeds := map[string][]byte{
		"f.md":   []byte("---\ntitle: x\n---\n# H1\ntext\n## H2\n"),
		"f.json": []byte(`{"a": [1, {"b": null}]}`),
		"f.go":   []byte("package p\nfunc (r *T) M() {}\n"),
		"f.py":   []byte("class A:\n    def m(self): pass\n"),
		"f.ts":   []byte("export class C { m() {} }\n"),
		"f.txt":  []byte("plain\n"),
	}
	// Hostile shapes as 8 KiB seeds: still past the depth limit, while the
	// fuzzer mutates and minimises kilobytes instead of megabytes (whole
	// megabyte seeds stalled it for seconds per new input). The full-size
	// files run through the real process in TestInspectDeepNesting and
	// TestInspectOneHugeLine.
	const seedMax = 8 << 10
	for name, data := range hostile() {
		seeds[name] = []byte(data[:min(len(data), seedMax)])
	}
	seeds["line.md"] = bytes.Repeat([]byte("# heading "), seedMax/10) // one long line
	seeds["binary.json"] = []byte("\x00\x01\xff\xfe{\"a\":1}\x80")
	seeds["invalid.md"] = []byte("# ok\n\xc3\x28\n")
	for name, data := range seeds {
		ext := slices.Index(fuzzExts, filepath.Ext(name))
		f.Add(data, uint8(max(ext, 0)))
	}
	known := []string{CodeNotUTF8, CodeParse, CodeInputLimit, CodeDepthLimit, CodeTimeLimit, CodeMemoryLimit}
	inProcess := func(ctx context.Context, env *privcmd.Env, args []string) int {
		return runWith(ctx, env, args, parseHere)
	}
	// One directory for the target's executions, the file rewritten each
	// time: a fresh t.TempDir each has a new name, whose digits take new
	// paths through the standard library, so the fuzzer took every input
	// as new coverage and spent its time minimising them.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, ext uint8) {
		name := "f" + fuzzExts[int(ext)%len(fuzzExts)]
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		env, out, code := inspectWith(t, inProcess, dir, name)
		switch {
		case env.OK && (code != env.okStatus() || env.Data.SizeBytes != len(data) || env.Data.LineCount != rows.Count(data)):
			t.Fatalf("exit %d, envelope does not describe the file: %.300s", code, out)
		case !env.OK && (code != 1 || !slices.Contains(known, env.Error.Code)):
			t.Fatalf("exit %d, unknown refusal: %.300s", code, out)
		case strings.Contains(env.Error.Message, "parser failed"):
			t.Fatalf("a parser crashed: %.300s", out)
		}
	})
}

// FuzzNesting: the pre-scan never panics, its depth is at most two levels
// a byte (a tab is four columns of indentation), and its row exists.
func FuzzNesting(f *testing.F) {
	for name, data := range hostile() {
		f.Add([]byte(data[:min(len(data), 4096)]), uint8(slices.Index(fuzzExts, filepath.Ext(name))))
	}
	f.Add([]byte("x = '''(\r\n'''\r# (\n/* */ `\\`"), uint8(3))
	f.Add([]byte("> - 1. [a](\r\n\n\t  * ("), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, ext uint8) {
		lang := Language("f" + fuzzExts[int(ext)%len(fuzzExts)])
		depth, row := nesting(lang, data)
		if depth < 0 || depth > 2*len(data) || row < 1 || row > max(1, rows.Count(data)) {
			t.Fatalf("depth %d at row %d for %d bytes, %d rows", depth, row, len(data), rows.Count(data))
		}
	})
}
