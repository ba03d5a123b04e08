package inspect

import (
	"strings"
	"testing"
)

func TestNesting(t *testing.T) {
	tests := []struct {
		name, lang, data string
		depth, row       int
	}{
		{"Go brackets", "go", "package p\nfunc f() {\n\tx := [][]int{{1}}\n}\n", 3, 3},
		{"Go strings, runes, raw strings and comments count a quarter", "go",
			"package p\nvar s = \"(((\\\"\" + `[[[\n{{{` + '(' // (((\n/* [[[\n]]] */\n", 4, 4},
		{"Python: comments, quotes and triple quotes count a quarter", "python", "x = (1,  # (((\n  '((', \"\"\"\n[[[\n\"\"\")\n", 2, 3},
		{"Python: a line of brackets in a string", "python", "x = 1\ns = '" + strings.Repeat("(", 100) + "'\n", 25, 2},
		{"Python: a quote left open ends with its line", "python", "x = 'a(\ny = ([1])\n", 2, 2},
		{"JavaScript: templates span lines, comments skipped", "javascript", "let s = `((\n((` /* { */\nf({a: [1]})\n", 3, 3},
		{"TSX: elements nest, type arguments and comparisons do not", "tsx",
			"const [n] = useState<number>(0)\nconst e = (<a><b>{n < 2 && x<y}</b><c/></a>)\n", 4, 2},
		{"JavaScript parses JSX too", "javascript", "x = <>" + strings.Repeat("<a>", 300) + "\n", 301, 1},
		{"TypeScript has no JSX", "typescript", "x = " + strings.Repeat("<a>", 300) + "\n", 0, 1},
		{"closers never go below zero", "typescript", ")))]]]}}}\n(\n", 1, 2},
		{"lone CR and CRLF end rows", "go", "a\rb\r\nc(\n", 1, 3},
		{"JSON is not scanned", "json", strings.Repeat("[", 1000), 0, 1},
		{"Markdown: block quotes and lists open containers", "markdown", "# t\n\n> > - 1. x\n", 4, 3},
		{"Markdown: indentation counts two columns a level", "markdown", "- a\n  - b\n    - c\n", 3, 3},
		{"Markdown: brackets open in a paragraph, closed by a blank line", "markdown", "[a](b (c\nd [e\n\n(\n", 3, 2},
		{"Markdown: numbers that are not list markers", "markdown", "2024 was a year\n1.5 is a number\n", 0, 1},
		{"Markdown: 100,000 levels", "markdown", strings.Repeat("> ", 100000) + "x\n", 100000, 1},
		{"Markdown: unclosed links", "markdown", "a\n" + strings.Repeat("[a](", 1000) + "\n", 1000, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			depth, row := nesting(tc.lang, []byte(tc.data))
			if depth != tc.depth || row != tc.row {
				t.Fatalf("depth %d at row %d, want %d at row %d", depth, row, tc.depth, tc.row)
			}
		})
	}
}
