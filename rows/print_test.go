package rows

import (
	"encoding/json"
	"testing"
)

// A quoted path is one JSON string that decodes to the path itself, with
// HTML characters kept as written (a model reads them; nothing embeds the
// row in HTML), and stays on one line.
func TestQuotePath(t *testing.T) {
	for path, want := range map[string]string{
		"a.go":           `"a.go"`,
		"dir/<b>&c.go":   `"dir/<b>&c.go"`,
		"say \"hi\".txt": `"say \"hi\".txt"`,
		"line\nbreak":    `"line\nbreak"`,
		"tab\there\r":    `"tab\there\r"`,
		"é/ü.md":         `"é/ü.md"`,
		"":               `""`,
	} {
		got := QuotePath(path)
		if got != want {
			t.Errorf("QuotePath(%q) = %s, want %s", path, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != path {
			t.Errorf("QuotePath(%q) = %s reads back as %q, %v", path, got, back, err)
		}
	}
}

// A listing row is the quoted path, then the row's LINE:HASH citation and
// its text: the same citation Row.Cite gives.
func TestAppendRow(t *testing.T) {
	text := []byte("func main() {")
	got := string(AppendRow([]byte("> "), QuotePath("cmd/a b.go"), 12, text))
	want := `> "cmd/a b.go":` + Row{Num: 12, Text: text}.Cite() + " func main() {\n"
	if got != want {
		t.Fatalf("AppendRow = %q, want %q", got, want)
	}
	if got := string(AppendRow(nil, `"e"`, 1, nil)); got != `"e":1:`+Hash(nil)+" \n" {
		t.Fatalf("AppendRow of an empty row = %q", got)
	}
}
