package registry

import (
	"os"
	"strings"
	"testing"
)

// FuzzToolFile: any file content is validated without a panic; each
// problem is one line placed in the file; a tool that passes renders as
// a custom tool with its name.
func FuzzToolFile(f *testing.F) {
	for _, name := range []string{"sql.toml", "python.toml", "gotest.toml"} {
		if b, err := os.ReadFile("../examples/" + name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("[[tool]]\nname = \"x\"\nrun = [\"-x\"]\n[tool.format]\ntype = \"grammar\"\nsyntax = \"lark\"\ndefinition = \"start: (\"\n"))
	f.Add([]byte("tool = 3\n[x]\ny = {a = [1, {b = 2}]}\n"))
	dir := f.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fl := &fileLoad{root: root, dir: dir, name: "f.toml", path: "f.toml"}
		tools := fl.parse(data)
		lines := strings.Count(string(data), "\n") + 1
		for _, p := range fl.probs {
			if p.Line < 0 || p.Line > lines || strings.ContainsAny(p.Msg, "\n\r") || p.Msg == "" {
				t.Fatalf("problem %+v", p)
			}
		}
		for _, tl := range tools {
			tl.render()
			if !strings.Contains(string(tl.JSON), `"name":"`+tl.Name+`"`) || len(tl.Spec.Run) == 0 {
				t.Fatalf("tool %+v", tl)
			}
		}
	})
}
