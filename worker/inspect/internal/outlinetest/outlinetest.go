package outlinetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/worker/inspect/outline"
)

// Summary renders entries as "kind name@START-END", with " name@ROW" when
// the name is on another row than the start, " recv=R" for methods,
// " level=N" for headings and " type=T" for JSON pointers.
func Summary(entries []outline.Entry) []string {
	out := []string{}
	for _, e := range entries {
		s := fmt.Sprintf("%s %s@%d-%d", e.Kind, e.Name, e.Start, e.End)
		if e.NameLine != 0 && e.NameLine != e.Start {
			s += fmt.Sprintf(" name@%d", e.NameLine)
		}
		if e.Receiver != "" {
			s += " recv=" + e.Receiver
		}
		if e.Level != 0 {
			s += fmt.Sprintf(" level=%d", e.Level)
		}
		if e.ValueType != "" {
			s += " type=" + e.ValueType
		}
		out = append(out, s)
	}
	return out
}

// Outliner outlines one corpus file; path says its language by extension.
type Outliner func(path string, data []byte, lines *outline.Lines) (outline.Result, error)

// goldenSuffix names the expected outline of a corpus file: NAME.EXT and
// NAME.EXT.outline side by side.
const goldenSuffix = ".outline"

// Golden outlines every file in dir (but the .outline files) and compares
// each outline's rendering (render) with the file's .outline; with update
// it writes the .outline files instead. Every entry's rows must lie inside
// the file, start before they end, and name a row at or after the start.
func Golden(t *testing.T, dir string, outlineFile Outliner, update bool) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, de := range entries {
		if de.IsDir() || strings.HasSuffix(de.Name(), goldenSuffix) {
			continue
		}
		n++
		path := filepath.Join(dir, de.Name())
		t.Run(de.Name(), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := outline.NewLines(data)
			res, err := outlineFile(path, data, lines)
			if err != nil {
				t.Fatalf("outline: %v", err)
			}
			for _, e := range res.Entries {
				if e.Start < 1 || e.End < e.Start || e.End > max(lines.Count(), 1) || e.NameLine != 0 && (e.NameLine < e.Start || e.NameLine > e.End) {
					t.Errorf("entry %+v outside rows 1..%d or its own span", e, lines.Count())
				}
			}
			got := render(res)
			if update {
				if err := os.WriteFile(path+goldenSuffix, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path + goldenSuffix)
			if err != nil {
				t.Fatalf("%v (run the test with -update to write it, then review it)", err)
			}
			if got != string(want) {
				t.Errorf("outline of %s differs from %s%s (rerun with -update and review the diff):\n%s",
					path, path, goldenSuffix, lineDiff(string(want), got))
			}
		})
	}
	if n == 0 {
		t.Fatalf("no corpus files in %s", dir)
	}
}

// render is an outline as its golden file holds it: whether it parsed
// completely, then one entry a line.
func render(res outline.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kind %s parse_complete %v\n", res.Kind, res.ParseComplete)
	for _, s := range Summary(res.Entries) {
		b.WriteString(s + "\n")
	}
	return b.String()
}

// lineDiff lists the lines only want has (-) and only got has (+), in
// order: enough to see which entries moved.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	in := func(lines []string) map[string]int {
		m := map[string]int{}
		for _, l := range lines {
			m[l]++
		}
		return m
	}
	inW, inG := in(w), in(g)
	var b strings.Builder
	for _, l := range w {
		if inG[l] == 0 {
			b.WriteString("- " + l + "\n")
		} else {
			inG[l]--
		}
	}
	for _, l := range g {
		if inW[l] == 0 {
			b.WriteString("+ " + l + "\n")
		} else {
			inW[l]--
		}
	}
	return b.String()
}
