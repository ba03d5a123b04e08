package python

import (
	"slices"
	"testing"

	"hpatch-router/worker/inspect/internal/outlinetest"
	"hpatch-router/worker/inspect/outline"
)

// summary outlines src and renders its entries (outlinetest.Summary).
func summary(t *testing.T, src string) ([]string, bool) {
	t.Helper()
	data := []byte(src)
	res, err := Outline(data, outline.NewLines(data))
	if err != nil {
		t.Fatal(err)
	}
	return outlinetest.Summary(res.Entries), res.ParseComplete
}

// The expectations are what tree-sitter's Python grammar, which
// inspect_file used before, gave for each input, but one: `from
// __future__ import …` is named __future__ (the tree-sitter walk named it
// "from").
func TestPythonOutline(t *testing.T) {
	tests := []struct {
		name, src string
		complete  bool
		want      []string
	}{
		{"imports: each module, relative, dotted as written, aliases dropped",
			"import os.path as osp, sys\nfrom . import x\nfrom ..pkg.mod import (a,\n    b)\nimport a . b\nfrom __future__ import annotations\n",
			true, []string{"import os.path@1-1", "import sys@1-1", "import .@2-2", "import ..pkg.mod@3-4", "import a . b@5-5", "import __future__@6-6"}},
		{"assignments: plain names only, constants by spelling, ';' splits",
			"X: int = 1\ny: str\na = b = 2\nc, d = 1, 2\ne += 1\nf = 1; g = 2\nself.x = 3\nz[0] = 1\ntype Alias = int\nelse_ = 1\n",
			true, []string{"constant X@1-1", "variable y@2-2", "variable a@3-3", "variable f@6-6", "variable g@6-6", "variable else_@10-10"}},
		{"decorated definitions span from the first decorator",
			"@decorator\n@other(\n    arg)\ndef func(\n    x,\n):\n    pass\n",
			true, []string{"function func@1-7 name@4"}},
		{"classes list the functions their bodies define directly",
			"class A(Base):\n    \"\"\"doc\"\"\"\n    x = 1\n    @property\n    def p(self): return 1\n    async def q(self):\n        pass\n    if True:\n        def inner(self): pass\n    class Nested:\n        def m(self): pass\nasync def af(): ...\n",
			true, []string{"class A@1-11", "method p@4-5 name@5 recv=A", "method q@6-7 recv=A", "function af@12-12"}},
		{"a block keeps trailing comments indented as deep as it",
			"def f():\n    x = 1\n    # c1\n# c2\n    # c3\ny = 1\n\nclass B:\n    def m(self):\n        pass\n            # deeper\n\n        # at method indent\n    # at class indent\nz = 2\n",
			true, []string{"function f@1-3", "variable y@6-6", "class B@8-14", "method m@9-13 recv=B", "variable z@15-15"}},
		{"indentation without ':' opens no block; a missing block is empty",
			"  x = 1\ny = 2\n\tz = 3\ndef f():\nw = 4\ndef g():\n    pass\n  v = 5\n",
			true, []string{"variable x@1-1", "variable y@2-2", "variable z@3-3", "function f@4-4", "variable w@5-5", "function g@6-7", "variable v@8-8"}},
		{"strings hide code: triple quotes, prefixes, f-string fields",
			"s = \"\"\"\ndef fake():\n\"\"\"\nt = f\"{x!r:>{width}} {'a' 'b'}\"\nu = f'{d[\"k\"]}' rb'\\'' Rb\"x\"\nv = f'''{\n1 # it's a comment\n}'''\nw = fr'\\{{\\}}'\ndef after(): pass\n",
			true, []string{"variable s@1-3", "variable t@4-4", "variable u@5-5", "variable v@6-8", "variable w@9-9", "function after@10-10"}},
		{"backslash continuations, a comment line continued onto",
			"x = 1 + \\\n    2\ndef f():\n    assert g() \\\n        # why\n\ny = 3\n",
			true, []string{"variable x@1-2", "function f@3-5", "variable y@7-7"}},
		{"an unclosed bracket before a def ends the statement",
			"def bad(:\n    pass\nx = 1\n",
			false, []string{"function bad@1-2", "variable x@3-3"}},
		{"an unterminated string or bracket at the end",
			"x = (1,\n",
			false, []string{}},
		{"an f-string field may hold its own quote (Python 3.12)",
			"a = f\"{\"'''\"}\"\nb = 1\nc = '''x'''\n",
			true, []string{"variable a@1-1", "variable b@2-2", "variable c@3-3"}},
		{"a byte order mark and CRLF rows",
			"\ufefffrom . import util\r\nclass C:\r\n    def m(self):\r\n        pass\r\n",
			true, []string{"import .@1-1", "class C@2-4", "method m@3-4 recv=C"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, complete := summary(t, tc.src)
			if !slices.Equal(got, tc.want) || complete != tc.complete {
				t.Errorf("outline of %q\n got %q complete %v\nwant %q complete %v", tc.src, got, complete, tc.want, tc.complete)
			}
		})
	}
}
