package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The edit corpus (README "Workspace edits", the byte table): real edits
// on real files of this repository, read from the tree at test time
// (corpusFiles; a CRLF copy of plugins/build.mjs and go.mod without its
// final newline are made from the live files), so the corpus never holds
// stale copies. An edit names its rows by what they hold (corpusRows),
// and its oracle's texts are in the file or read from it: when a file
// changes so that an edit no longer applies, the test says which text it
// no longer finds. For each edit it checks that hpatch gives exactly the
// bytes an independent oracle gives (text replacements of the base), and
// measures the bytes the model writes for it: the hpatch input against
// the apply_patch envelope of the same change, as apply_patch's
// instructions ask for it (three lines of context around each change,
// `@@` hunks, `-`/`+`/` ` lines; see envelope).

// change is one part of the oracle: replace from by to in file (all: every
// occurrence; from "" with to: create; rm: remove; mv: rename after).
type change struct {
	file, from, to string
	all, rm        bool
	mv             string
}

type corpusCase struct {
	name, edit string
	want       []change
	note       string
}

// corpusFiles names each corpus file and the file of the tree it is made
// from, relative to the module root.
func corpusFiles() map[string]string {
	return map[string]string{
		"env.go":          "workspace/env.go",
		"resolve.go":      "workspace/resolve.go",
		"private_call.go": "shebang/private_call.go",
		"lark_agree.py":   "hpatch/testdata/lark_agree.py",
		"how.md":          "docs/how-it-works.md",
		"Makefile":        "Makefile",
		"build_crlf.mjs":  "plugins/build.mjs",
		"go_nofinal.mod":  "go.mod",
	}
}

// corpusBases reads the corpus files from the tree: build_crlf.mjs with
// CRLF line endings, go_nofinal.mod without its final newline.
func corpusBases(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, src := range corpusFiles() {
		data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(src)))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		switch name {
		case "build_crlf.mjs":
			if strings.Contains(text, "\r") {
				t.Fatalf("%s has CR bytes already: the CRLF case would not test a conversion", src)
			}
			text = strings.ReplaceAll(text, "\n", "\r\n")
		case "go_nofinal.mod":
			text = strings.TrimSuffix(text, "\n")
		}
		out[name] = text
	}
	return out
}

// corpusRows finds rows of the corpus bases by what they hold, so an edit
// follows its file as the tree changes.
type corpusRows struct {
	t     *testing.T
	bases map[string]string
}

// row is the 1-based number of the one row of file that starts with
// prefix (after its indentation when prefix has none).
func (c corpusRows) row(file, prefix string) int {
	c.t.Helper()
	found := 0
	for i, r := range strings.Split(strings.ReplaceAll(c.bases[file], "\r\n", "\n"), "\n") {
		if strings.HasPrefix(r, prefix) || strings.TrimLeft(prefix, " \t") == prefix && strings.HasPrefix(strings.TrimLeft(r, " \t"), prefix) {
			if found != 0 {
				c.t.Fatalf("%s (from %s) has two rows starting %q (%d and %d): the corpus edit needs a unique one", file, corpusFiles()[file], prefix, found, i+1)
			}
			found = i + 1
		}
	}
	if found == 0 {
		c.t.Fatalf("%s (from %s) has no row starting %q any more: rewrite the corpus edit for the file as it is now", file, corpusFiles()[file], prefix)
	}
	return found
}

// text is rows from..to of file (1-based, inclusive), line endings included.
func (c corpusRows) text(file string, from, to int) string {
	rs := strings.SplitAfter(c.bases[file], "\n")
	return strings.Join(rs[from-1:to], "")
}

// last is the number of file's last row.
func (c corpusRows) last(file string) int {
	return len(strings.SplitAfter(strings.TrimSuffix(c.bases[file], "\n"), "\n"))
}

// section is the rows of file from the heading row starting with heading
// to the row before the next heading (or the end): first and last row.
func (c corpusRows) section(file, heading string) (int, int) {
	first := c.row(file, heading)
	rs := strings.Split(strings.TrimSuffix(c.bases[file], "\n"), "\n")
	last := len(rs)
	for i := first; i < len(rs); i++ {
		if strings.HasPrefix(rs[i], "#") {
			last = i
			break
		}
	}
	return first, last
}

func corpusCases(t *testing.T, bases map[string]string) []corpusCase {
	c := corpusRows{t, bases}
	sf, sl := c.section("how.md", "### What it costs")
	mdSection := c.text("how.md", sf, sl)
	measured := c.row("how.md", "Measured on the 2-core test VM")
	mdTitle := c.text("how.md", 1, 1)
	return []corpusCase{
		{"Go: rename a method at its definition and 2 calls", fmt.Sprintf("in env.go\ntype {env.go:%d} \"func (e Env) resolve(name string) (place, error) {\"\nin resolve.go\ntype \"env.locate(s.Path)\" \"\\t\\tat, err := env.resolve(s.Path)\"\ntype \"env.locate(e.destPath)\" \"\\td, err := env.resolve(e.destPath)\"", c.row("env.go", "func (e Env) locate(")),
			[]change{{file: "env.go", from: "(e Env) locate(", to: "(e Env) resolve("}, {file: "resolve.go", from: "env.locate(", to: "env.resolve(", all: true}}, "multi-file"},
		{"Go: change a constant", "in env.go\ntype \"const MaxFileBytes\" \"const MaxFileBytes = 16 << 20\"",
			[]change{{file: "env.go", from: "8 << 20", to: "16 << 20"}}, ""},
		{"Go: add a struct field", fmt.Sprintf("in env.go\nadd {env.go:%d} \"\\tSandbox string // sandbox_mode of the turn\"", c.row("env.go", "\tRoots []string")+1),
			[]change{{file: "env.go", from: "\tRoots []string\n}", to: "\tRoots []string\n\tSandbox string // sandbox_mode of the turn\n}"}}, ""},
		{"Go: delete a function", fmt.Sprintf("in env.go\ntype {env.go:%d}..{env.go:%d} \"\"", c.row("env.go", "// within reports whether"), c.row("env.go", "// within reports whether")+8),
			[]change{{file: "env.go", from: "// within reports whether the clean absolute path abs is root or lies\n// under it.\nfunc within(abs, root string) bool {\n\tif root == string(filepath.Separator) {\n\t\treturn true\n\t}\n\treturn abs == root || strings.HasPrefix(abs, root+string(filepath.Separator))\n}\n\n", to: ""}}, ""},
		{"Go: replace a function body", fmt.Sprintf("in env.go\ntype {env.go:%d}..{env.go:%d} <<PATCH\n\tif r := []rune(s); len(r) > 120 {\n\t\treturn string(r[:120]) + \"…\"\n\t}\n\treturn s\nPATCH", c.row("env.go", "\tconst max = 120"), c.row("env.go", "\tconst max = 120")+4),
			[]change{{file: "env.go", from: "\tconst max = 120\n\tif len(s) <= max {\n\t\treturn s\n\t}\n\treturn s[:max] + \"…\"\n", to: "\tif r := []rune(s); len(r) > 120 {\n\t\treturn string(r[:120]) + \"…\"\n\t}\n\treturn s\n"}}, ""},
		{"Go: one word in a long line", fmt.Sprintf("in env.go\ntype {env.go:%d} \"\\t\\treturn place{}, fmt.Errorf(\\\"%%q is the workspace root, not a file\\\", clip(name))\"", c.row("env.go", "return place{}, fmt.Errorf(\"%q is the workspace root itself")),
			[]change{{file: "env.go", from: "the workspace root itself, not", to: "the workspace root, not"}}, "whole row retyped"},
		{"Go: add an import", fmt.Sprintf("in env.go\nadd {env.go:%d} \"\\t\\\"os\\\"\"", c.row("env.go", "\t\"fmt\"")+1),
			[]change{{file: "env.go", from: "\t\"fmt\"\n", to: "\t\"fmt\"\n\t\"os\"\n"}}, ""},
		{"Go: comment a line out", "in private_call.go\ntype \"if err := checkCmd(wc)\" \"\\t// if err := checkCmd(wc); err != nil {\"",
			[]change{{file: "private_call.go", from: "\tif err := checkCmd(wc)", to: "\t// if err := checkCmd(wc)"}}, ""},
		{"Go: two edits far apart", fmt.Sprintf("in private_call.go\ntype {private_call.go:%d} \"package shebang // import \\\"hpatch-router/shebang\\\"\"\nadd EOF \"\\n// end\"", c.row("private_call.go", "package shebang")),
			[]change{{file: "private_call.go", from: "package shebang\n", to: "package shebang // import \"hpatch-router/shebang\"\n"}, {file: "private_call.go", from: "result));`)\n\treturn b.String()\n}\n", to: "result));`)\n\treturn b.String()\n}\n\n// end\n"}}, ""},
		{"Python: replace a function body", fmt.Sprintf("in lark_agree.py\ntype {lark_agree.py:%d}..{lark_agree.py:%d} <<PATCH\n    req = json.load(sys.stdin)\n    parsers = [Lark(req[\"grammar\"], parser=p) for p in (\"lalr\", \"earley\")]\n    json.dump([[ok(p, e) for p in parsers] for e in req[\"edits\"]], sys.stdout)\nPATCH", c.row("lark_agree.py", "    req = json.load(sys.stdin)"), c.row("lark_agree.py", "    json.dump(out, sys.stdout)")),
			[]change{{file: "lark_agree.py", from: pyBody, to: "    req = json.load(sys.stdin)\n    parsers = [Lark(req[\"grammar\"], parser=p) for p in (\"lalr\", \"earley\")]\n    json.dump([[ok(p, e) for p in parsers] for e in req[\"edits\"]], sys.stdout)\n"}}, ""},
		{"Python: add a function", fmt.Sprintf("in lark_agree.py\nadd {lark_agree.py:%d} <<PATCH\ndef ok(parser, edit):\n    try:\n        parser.parse(edit)\n        return True\n    except LarkError:\n        return False\n\n\nPATCH", c.row("lark_agree.py", "main()")),
			[]change{{file: "lark_agree.py", from: "\n\nmain()\n", to: "\n\ndef ok(parser, edit):\n    try:\n        parser.parse(edit)\n        return True\n    except LarkError:\n        return False\n\n\nmain()\n"}}, ""},
		{"Python: change one argument", "in lark_agree.py\ntype \"parser=\\\"earley\\\"\" \"        Lark(req[\\\"grammar\\\"], parser=\\\"earley\\\", lexer=\\\"basic\\\"),\"",
			[]change{{file: "lark_agree.py", from: "lexer=\"dynamic\"", to: "lexer=\"basic\""}}, ""},
		{"Python: delete the docstring", fmt.Sprintf("in lark_agree.py\ntype {lark_agree.py:1}..{lark_agree.py:%d} \"\"", strings.Count(pyDoc, "\n")),
			[]change{{file: "lark_agree.py", from: pyDoc, to: ""}}, ""},
		{"Markdown: move a section", fmt.Sprintf("in how.md\ntype {how.md:%d}..{how.md:%d} \"\"\nadd {how.md:%d} <<PATCH\n%sPATCH", sf, sl, c.row("how.md", "Codex 0.144–0.146 list"), mdSection),
			[]change{{file: "how.md", from: mdSection, to: ""}, {file: "how.md", from: "Codex 0.144–0.146 list", to: mdSection + "Codex 0.144–0.146 list"}}, fmt.Sprintf("%d rows retyped", sl-sf+1)},
		{"Markdown: fix a word", fmt.Sprintf("in how.md\ntype {how.md:%d} \"yielded result reaches the model exactly as Codex gave it.\"", c.row("how.md", "yielded result reaches the model exactly as Codex produced it.")),
			[]change{{file: "how.md", from: "exactly as Codex produced it.", to: "exactly as Codex gave it."}}, ""},
		{"Markdown: add a bullet", fmt.Sprintf("in how.md\nadd {how.md:%d} \"- **Workspace edits**: resolved in the router, written by `hpatch-write` in Codex's sandbox.\"", c.row("how.md", "- **The proxy**")),
			[]change{{file: "how.md", from: "- **The proxy**", to: "- **Workspace edits**: resolved in the router, written by `hpatch-write` in Codex's sandbox.\n- **The proxy**"}}, ""},
		{"Markdown: rewrite a paragraph", fmt.Sprintf("in how.md\ntype {how.md:%d}..{how.md:%d} \"Measured on the 2-core test VM against a baseline from the same run (scripts: see Development):\"", measured, measured+1),
			[]change{{file: "how.md", from: c.text("how.md", measured, measured+1), to: "Measured on the 2-core test VM against a baseline from the same run (scripts: see Development):\n"}}, ""},
		{"Makefile: change a default", "in Makefile\ntype \"FUZZTIME  ?=\" \"FUZZTIME  ?= 30s\"",
			[]change{{file: "Makefile", from: "FUZZTIME  ?= 10s", to: "FUZZTIME  ?= 30s"}}, ""},
		{"Makefile: append a target", "in Makefile\nadd EOF <<PATCH\n\nlint:\n\t$(GO) vet ./...\nPATCH",
			[]change{{file: "Makefile", from: "\x00EOF", to: "\nlint:\n\t$(GO) vet ./...\n"}}, ""},
		{"CRLF: replace a line", "in build_crlf.mjs\ntype \"const text =\" \"const text = JSON.stringify(bundle, null, 1) + \\\"\\\\n\\\";\"",
			[]change{{file: "build_crlf.mjs", from: "bundle, null, 2)", to: "bundle, null, 1)"}}, "CRLF kept"},
		{"CRLF: append lines", "in build_crlf.mjs\nadd EOF \"// generated by hand\\n// end\"",
			[]change{{file: "build_crlf.mjs", from: "\x00EOF", to: "// generated by hand\r\n// end\r\n"}}, "CRLF kept"},
		{"CRLF: delete two lines", fmt.Sprintf("in build_crlf.mjs\ntype {build_crlf.mjs:%d}..{build_crlf.mjs:%d} \"\"", c.row("build_crlf.mjs", "const desc = Buffer.byteLength("), c.row("build_crlf.mjs", "const hp = Buffer.byteLength(")),
			[]change{{file: "build_crlf.mjs", from: "  const desc = Buffer.byteLength(shell.description, \"utf8\");\r\n  const hp = Buffer.byteLength(hpatch.description, \"utf8\");\r\n", to: ""}}, "CRLF kept"},
		{"no final newline: edit the last row", fmt.Sprintf("in go_nofinal.mod\ntype {go_nofinal.mod:%d} \")  \"", c.last("go_nofinal.mod")),
			[]change{{file: "go_nofinal.mod", from: "// indirect\n)", to: "// indirect\n)  "}}, "apply_patch adds \\n"},
		{"no final newline: append a row", "in go_nofinal.mod\nadd EOF \"// end\"",
			[]change{{file: "go_nofinal.mod", from: "// indirect\n)", to: "// indirect\n)\n// end"}}, "apply_patch adds \\n"},
		{"no final newline: edit the first row", fmt.Sprintf("in go_nofinal.mod\ntype {go_nofinal.mod:%d} \"module example.com/hpatch-router\"", c.row("go_nofinal.mod", "module hpatch-router")),
			[]change{{file: "go_nofinal.mod", from: "module hpatch-router\n", to: "module example.com/hpatch-router\n"}}, "apply_patch adds \\n"},
		{"new file", "new cmd/hello/main.go\ntype <<PATCH\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\nPATCH",
			[]change{{file: "cmd/hello/main.go", to: "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"}}, ""},
		{"remove a file", "in Makefile\nrm", []change{{file: "Makefile", rm: true}}, ""},
		{"move a file", "in how.md\nmv docs/how.md", []change{{file: "how.md", mv: "docs/how.md"}}, ""},
		{"move and edit", fmt.Sprintf("in private_call.go\nmv privcall.go\ntype {private_call.go:%d} \"package privcall\"", c.row("private_call.go", "package shebang")),
			[]change{{file: "private_call.go", from: "package shebang\n", to: "package privcall\n", mv: "privcall.go"}}, ""},
		{"two files, one row each", "in env.go\ntype \"const max = 120\" \"\\tconst max = 160\"\nin how.md\ntype {how.md:1} \"# How hpatch-router works\"",
			[]change{{file: "env.go", from: "const max = 120", to: "const max = 160"}, {file: "how.md", from: mdTitle, to: "# How hpatch-router works\n"}}, "multi-file"},
		{"Go: rename a local in 3 rows", fmt.Sprintf("in env.go\ntype {env.go:%d} \"\\tinner := \\\"\\\"\"\ntype {env.go:%d}..{env.go:%d} <<PATCH\n\t\tif !filepath.IsAbs(r) || !within(abs, r) || len(r) <= len(inner) {\n\t\t\tcontinue\n\t\t}\n\t\tinner = r\nPATCH", c.row("env.go", "\tbest := \"\""), c.row("env.go", "\t\tif !filepath.IsAbs(r)"), c.row("env.go", "\t\tif !filepath.IsAbs(r)")+3),
			[]change{{file: "env.go", from: "\tbest := \"\"\n", to: "\tinner := \"\"\n"}, {file: "env.go", from: "len(r) <= len(best) {\n\t\t\tcontinue\n\t\t}\n\t\tbest = r\n", to: "len(r) <= len(inner) {\n\t\t\tcontinue\n\t\t}\n\t\tinner = r\n"}}, "other uses left"},
	}
}

const pyBody = "    req = json.load(sys.stdin)\n    parsers = [\n        Lark(req[\"grammar\"], parser=\"lalr\", lexer=\"contextual\"),\n        Lark(req[\"grammar\"], parser=\"earley\", lexer=\"dynamic\"),\n    ]\n    out = []\n    for edit in req[\"edits\"]:\n        row = []\n        for parser in parsers:\n            try:\n                parser.parse(edit)\n                row.append(True)\n            except LarkError:\n                row.append(False)\n        out.append(row)\n    json.dump(out, sys.stdout)\n"

const pyDoc = "\"\"\"Parse hpatch edits with the tool's Lark grammar, for grammar_test.go.\n\nstdin:  {\"grammar\": \"<lark text>\", \"edits\": [\"...\", ...]}\nstdout: [[lalr_ok, earley_ok], ...], one pair per edit.\n\nTwo parsers read the grammar: LALR(1) with the contextual lexer (which\nalso proves the grammar unambiguous enough for an LR table) and Earley with\nthe dynamic lexer (closest to a grammar-constrained sampler, which tries\nevery terminal the parser allows at each point).\n\"\"\"\n"

// oracle applies c's changes to the bases: the files after the edit
// (a missing key is a removed file).
func oracle(t *testing.T, bases map[string]string, changes []change) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range bases {
		out[k] = v
	}
	for _, ch := range changes {
		cur, ok := out[ch.file]
		switch {
		case ch.rm:
			delete(out, ch.file)
			continue
		case !ok:
			out[ch.file] = ch.to
			continue
		case ch.from == "\x00EOF":
			cur += ch.to
		case ch.from != "" && strings.Count(cur, ch.from) == 0:
			t.Fatalf("oracle: %q does not occur in %s", ch.from, ch.file)
		case ch.from != "" && !ch.all && strings.Count(cur, ch.from) != 1:
			t.Fatalf("oracle: %q occurs %d times in %s", ch.from, strings.Count(cur, ch.from), ch.file)
		case ch.from != "":
			cur = strings.ReplaceAll(cur, ch.from, ch.to)
		}
		out[ch.file] = cur
		if ch.mv != "" {
			delete(out, ch.file)
			out[ch.mv] = cur
		}
	}
	return out
}

func TestEditCorpus(t *testing.T) {
	bases := corpusBases(t)
	cases := corpusCases(t, bases)
	if len(cases) < 30 {
		t.Fatalf("the corpus has %d edits; the README table promises 30 or more", len(cases))
	}
	var table strings.Builder
	table.WriteString("| edit | hpatch bytes | apply_patch bytes (3 / 0 lines of context) | hpatch / apply_patch | note |\n| --- | ---: | ---: | ---: | --- |\n")
	var sumH, sumA, sumZ int
	for _, c := range cases {
		tr := newTree(t, bases)
		edit := tr.cite(t, c.edit)
		plan, err := resolve(t, tr.env(), edit)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want := oracle(t, bases, c.want)
		if err := plan.Write(t.Context()); err != nil {
			t.Errorf("%s: write: %v", c.name, err)
			continue
		}
		got := map[string]string{}
		filepath.WalkDir(tr.root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(tr.root, p)
				data, _ := os.ReadFile(p)
				got[filepath.ToSlash(rel)] = string(data)
			}
			return err
		})
		if !equalMaps(got, want) {
			for k := range want {
				if got[k] != want[k] {
					t.Errorf("%s: %s is\n%q\nwant\n%q", c.name, k, got[k], want[k])
				}
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("%s: %s should not exist", c.name, k)
				}
			}
			continue
		}
		env, bare := envelope(plan, 3), envelope(plan, 0)
		sumH, sumA, sumZ = sumH+len(edit), sumA+len(env), sumZ+len(bare)
		fmt.Fprintf(&table, "| %s | %d | %d / %d | %.2f / %.2f | %s |\n", c.name, len(edit), len(env), len(bare),
			float64(len(edit))/float64(len(env)), float64(len(edit))/float64(len(bare)), c.note)
	}
	fmt.Fprintf(&table, "| **all %d edits** | **%d** | **%d / %d** | **%.2f / %.2f** | |\n", len(cases), sumH, sumA, sumZ,
		float64(sumH)/float64(sumA), float64(sumH)/float64(sumZ))
	t.Log("\n" + table.String())
}

// envelope is the apply_patch envelope of plan's change: per file an
// Update (with Move to), Add or Delete section; an Update has one `@@`
// hunk per group of changed lines with ctx lines of context, lines
// written without their line endings (apply_patch's own form).
func envelope(plan *Plan, ctx int) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for _, f := range plan.Files {
		switch f.Action {
		case Remove:
			b.WriteString("*** Delete File: " + f.Name + "\n")
		case Create:
			b.WriteString("*** Add File: " + f.Name + "\n")
			for _, l := range lines(f.New) {
				b.WriteString("+" + l + "\n")
			}
		default:
			b.WriteString("*** Update File: " + f.Name + "\n")
			if f.Dest != "" {
				b.WriteString("*** Move to: " + f.Dest + "\n")
			}
			b.WriteString(hunks(lines(f.Old), lines(f.New), ctx))
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// lines splits data into lines without terminators.
func lines(data []byte) []string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// hunks renders the line diff of a and b (longest common subsequence)
// with ctx lines of context, merging hunks whose context touches.
func hunks(a, b []string, ctx int) string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte
		text string
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, op{'+', b[j]})
			j++
		default:
			ops = append(ops, op{'-', a[i]})
			i++
		}
	}
	keep := make([]bool, len(ops))
	for k, o := range ops {
		if o.kind != ' ' {
			for d := max(0, k-ctx); d <= min(len(ops)-1, k+ctx); d++ {
				keep[d] = true
			}
		}
	}
	var out strings.Builder
	open := false
	for k, o := range ops {
		if !keep[k] {
			open = false
			continue
		}
		if !open {
			out.WriteString("@@\n")
			open = true
		}
		out.WriteString(string(o.kind) + o.text + "\n")
	}
	return out.String()
}
