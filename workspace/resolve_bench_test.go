package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/hpatch"
	"hpatch-router/rows"
)

// BenchmarkResolveSections resolves the same N one-row edits of one file
// written as N `in` sections and as one section: grouping the sections
// must cost about what the one section costs (issue 33 case 10 measured
// 7.5 s against 0.1 s at 10,000 before grouping was made linear). Compare
// the ns/op of sections=N with one=N; there is no threshold here.
func BenchmarkResolveSections(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		root := b.TempDir()
		var file strings.Builder
		for i := range n {
			fmt.Fprintf(&file, "row %d\n", i)
		}
		if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(file.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		env := Env{Cwd: root, Roots: []string{root}}
		var many, one strings.Builder
		one.WriteString("in big.txt\n")
		for i, r := range rows.Split([]byte(file.String())) {
			fmt.Fprintf(&many, "in big.txt\ntype %s \"ROW %d\"\n", r.Cite(), i)
			fmt.Fprintf(&one, "type %s \"ROW %d\"\n", r.Cite(), i)
		}
		for _, c := range []struct{ name, edit string }{{"sections", many.String()}, {"one", one.String()}} {
			p, err := hpatch.Parse(c.edit)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s=%d", c.name, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := Resolve(context.Background(), env, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
