package inspect

import (
	"testing"
	"unicode/utf8"
)

// checkOutline is what every parser promises for any input: no panic, and
// every entry's rows inside the file and in order.
func checkOutline(t *testing.T, path string, data []byte) {
	res, err := outline(Language(path), data)
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
	f.Fuzz(func(t *testing.T, data []byte) { checkOutline(t, "f.md", data) })
}

func FuzzOutlineGo(f *testing.F) {
	f.Add([]byte("package p\nimport \"fmt\"\nfunc (r *T[K]) M() {}\nconst (A = 1; B)\n"))
	f.Add([]byte("package p\rfunc A() {\r}\r"))
	f.Add([]byte("func"))
	f.Fuzz(func(t *testing.T, data []byte) { checkOutline(t, "f.go", data) })
}

func FuzzOutlineTreeSitter(f *testing.F) {
	f.Add([]byte("class A:\n    def m(self):\n        pass\n"), false)
	f.Add([]byte("export class C { m() {} }\r\nconst f = () => 1;\r"), true)
	f.Add([]byte("def (:"), false)
	f.Fuzz(func(t *testing.T, data []byte, ts bool) {
		path := "f.py"
		if ts {
			path = "f.ts"
		}
		checkOutline(t, path, data)
	})
}
