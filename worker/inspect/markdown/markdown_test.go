package markdown

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"hpatch-router/worker/inspect/outline"
)

// headings renders Outline's heading entries as "NAME@START-END
// level=N".
func headings(t *testing.T, src string) []string {
	t.Helper()
	data := []byte(src)
	res, err := Outline(data, outline.NewLines(data))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, e := range res.Entries {
		if e.Kind == outline.KindHeading {
			out = append(out, fmt.Sprintf("%s@%d-%d level=%d", e.Name, e.Start, e.End, e.Level))
		}
	}
	return out
}

// The expectations are what goldmark, the CommonMark parser inspect_file
// used before, gave for each input (one deliberate difference: a lone CR
// ends a line, as CommonMark and the project's rows say; goldmark kept it
// inside the heading text).
func TestMarkdownHeadings(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"ATX levels, closing sequences, empty headings",
			"# One\n## Two ##\n### Three #not-closing\n#\n####### seven is text\n#nospace\n  ### indented 2\n",
			[]string{"One@1-3 level=1", "Two@2-3 level=2", "Three #not-closing@3-3 level=3", "@4-7 level=1", "indented 2@7-7 level=3"}},
		{"setext after a multi-line paragraph, '=' and '-'",
			"First\nline\n===\n\nSecond\n---\n",
			[]string{"First line@1-6 level=1", "Second@5-6 level=2"}},
		{"a thematic break is no setext underline after a blank line",
			"Para\n\n---\n# After\n",
			[]string{"After@4-4 level=1"}},
		{"code: fenced (backticks, tildes, longer closer), indented",
			"```\n# no\n````\n# yes 1\n~~~ info\n# no\n~~~\n    # no, indented code\n# yes 2\n",
			[]string{"yes 1@4-8 level=1", "yes 2@9-9 level=1"}},
		{"an unclosed fence runs to the end",
			"```\n# no\n",
			[]string{}},
		{"HTML blocks end at their condition or a blank line",
			"<div>\n# no\n\n# yes\n<!--\n# no\n-->\n# yes 2\n<custom-tag>\n# no\n\n# yes 3\n",
			[]string{"yes@4-7 level=1", "yes 2@8-11 level=1", "yes 3@12-12 level=1"}},
		{"containers: block quotes, list items, lazy continuation",
			"> # in quote\n> para\nlazy\n===\n- # in item\n  Setext in item\n  ---\n1. x\n2. # second\n",
			[]string{"in quote@1-4 level=1", "in item@5-8 level=1", "Setext in item@6-8 level=2", "second@9-9 level=1"}},
		{"a list item starting with a blank line ends at the next blank",
			"-\n  # in item\n\n-\n\n  # not in item\n",
			[]string{"in item@2-5 level=1", "not in item@6-6 level=1"}},
		{"inline markup is stripped from heading text",
			"# *em* **strong** _u_ `code` ``a`b`` [link](http://x \"t\") ![alt](i.png) <http://auto> <b>tag</b> x<!-- c -->y\n",
			[]string{"em strong u code a`b link alt  tag xy@1-1 level=1"}},
		{"references: defined labels link, undefined stay literal",
			"# [def] [undef] [full][def] [c][] [x](<a b>)\n\n[def]: /url\n",
			[]string{"def [undef] full [c][] x@1-3 level=1"}},
		{"emphasis edge cases stay as CommonMark reads them",
			"# a*b*c _a_b_ *a **b** c* ***x*** **a*\n## foo*bar_ 2*3*4 __bold__ __x\n",
			[]string{"abc a_b a b c x *a@1-2 level=1", "foobar_ 23*4 bold __x@2-2 level=2"}},
		{"escapes and entities stay as written",
			"# \\*not em\\* &amp; &#42; \\# x \\\n",
			[]string{"\\*not em\\* &amp; &#42; \\# x \\@1-1 level=1"}},
		{"a definition paragraph cannot become a setext heading",
			"[a]: /b\n===\n\n[c]: /d\nText\n===\n",
			[]string{"Text@5-6 level=1"}},
		{"tabs count as columns",
			"-\t# tab item\n>\t# tab quote\n#\ttab heading\n\t# tab code\n",
			[]string{"tab item@1-1 level=1", "tab quote@2-2 level=1", "tab heading@3-4 level=1"}},
		{"sections end before the next heading of the same or a higher level",
			"# A\n## B\n### C\n## D\n# E\ntext\n",
			[]string{"A@1-4 level=1", "B@2-3 level=2", "C@3-3 level=3", "D@4-4 level=2", "E@5-6 level=1"}},
		{"CRLF and lone CR rows",
			"# crlf\r\ntext\r\nSetext\r\n---\r\n# cr\rx\r",
			[]string{"crlf@1-4 level=1", "text Setext@2-4 level=2", "cr@5-6 level=1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := headings(t, tc.src); !slices.Equal(got, tc.want) {
				t.Errorf("headings of %q\n got %q\nwant %q", tc.src, got, tc.want)
			}
		})
	}
}

// Shapes that cost a nesting parser time or depth: every one is read in
// one pass (a blank line costs O(1) however many list items it
// continues; a line of list markers one scan) and gives the headings a
// CommonMark parser finds.
func TestMarkdownHostileShapes(t *testing.T) {
	deep := strings.Repeat(">", 100000)
	markers := strings.Repeat("- ", 50000)
	tests := []struct {
		name, src string
		want      []string
	}{
		{"100000 nested block quotes", deep + " # deep\n" + deep + " text\n", []string{"deep@1-2 level=1"}},
		{"50000 nested list items, then blank lines", markers + "x\n" + strings.Repeat("\n", 200000) + "# after\n", []string{"after@200002-200002 level=1"}},
		{"a heading of emphasis delimiters", "# " + strings.Repeat("*a_", 300000) + "\n", nil},
		{"a heading of brackets", "# " + strings.Repeat("[", 500000) + "\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := headings(t, tc.src)
			if tc.want == nil {
				if len(got) != 1 || len(got[0]) > maxHeadingSource+20 {
					t.Fatalf("want one heading, its name at most %d bytes; got %d headings", maxHeadingSource, len(got))
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// The top-level scalar keys of front matter, and whether it is valid YAML.
func TestFrontMatterKeys(t *testing.T) {
	tests := []struct {
		yaml     string
		complete bool
		keys     []string
	}{
		{"a: 1\na: 2\n", true, []string{"a@2", "a@3"}},
		{"a:\nb: x\n", true, []string{"a@2", "b@3"}},
		{"a:\n- x\nb: 1\n", true, []string{"b@4"}},
		{"a:\n  - x\nb: 1\n", true, []string{"b@4"}},
		{"a: [1,\n  2]\nb: 1\n", true, []string{"b@4"}},
		{"a: *x\nb: &y 1\nc: !!str 2\n", false, []string{}},
		{"a: &x 1\nb: *x\nc: 3\n", true, []string{"a@2", "c@4"}},
		{"a: |\n  text\nb: >-\n  more\nc: \"multi\n  line\"\nd: plain\n  cont\n", true, []string{"a@2", "b@4", "c@6", "d@8"}},
		{"\"q k\": 1\n? complex\n: v\ne: 1\n", true, []string{"q k@2", "complex@3", "e@5"}},
		{"a: 1\nbad line\nc: 2\n", false, []string{}},
		{"- a\n- b\n", true, []string{}},
		{"just text\n", true, []string{}},
		{"a: 1\n\tb: 2\n", false, []string{}},
		{"a: b: c\n", false, []string{}},
		{"a: {x: 1}\nb: 2 # c\n# com\nc: x\n", true, []string{"b@3", "c@5"}},
		{"a: 1\n  b: 2\n", false, []string{}},
		{"key with spaces: 1\nk2:v\nk3: \"unterminated\n", false, []string{}},
		{"title: \"Hello: world\"\ndate: 2020-01-01\ntags:\n  - a\n  - b\ndraft: false\n", true, []string{"title@2", "date@3", "draft@7"}},
		{"title: 'It''s'\nlayout: post\n", true, []string{"title@2", "layout@3"}},
		{"a: \"x\\\"y\"\nb: 1\n", true, []string{"a@2", "b@3"}},
		{"nested:\n  a: 1\n  b:\n    c: 2\nflat: yes\n", true, []string{"flat@6"}},
		{"a: 1 # comment\nb: # only comment\n  x: 1\nc:\n", true, []string{"a@2", "c@5"}},
		{"a:\n\nb: 1\n", true, []string{"a@2", "b@4"}},
		{"a: >\n  folded\n\n  more\nb: 2\n", true, []string{"a@2", "b@6"}},
		{"url: http://example.com:8080/x\ntime: 12:30\n", true, []string{"url@2", "time@3"}},
		{"a: [1, 2\nb: 1\n", false, []string{}},
		{"a: 'unterminated\nb: 1\n", false, []string{}},
		{"- a\nb: 1\n", false, []string{}},
		{"a: 1\n- b\n", false, []string{}},
		{"list:\n- a: 1\n  b: 2\n- c\nnext: 1\n", true, []string{"next@6"}},
		{"k: !tag\n  x: 1\nm: !!map {a: 1}\n", true, []string{}},
		{"a: @x\n", false, []string{}},
		{"a: `x`\n", false, []string{}},
		{"a: 0\n", true, []string{"a@2"}},
		{"? a\n? b\nc: 1\n", true, []string{"a@2", "b@3", "c@4"}},
		{"a:    \n    b\nc: 1\n", true, []string{"a@2", "c@4"}},
		{"\"a\": 1\n'b': 2\n", true, []string{"a@2", "b@3"}},
		{"a: x\n  # comment\n  y\nb: 1\n", false, []string{}},
		{"{a: 1}\n", true, []string{"a@2"}},
		{"[1, 2]\n", true, []string{}},
	}
	for _, tc := range tests {
		entries, ok := frontMatterKeys([]byte(tc.yaml), 2)
		got := []string{}
		for _, e := range entries {
			got = append(got, fmt.Sprintf("%s@%d", e.Name, e.Start))
		}
		if ok != tc.complete || !slices.Equal(got, tc.keys) {
			t.Errorf("front matter %q: complete %v keys %q, want %v %q", tc.yaml, ok, got, tc.complete, tc.keys)
		}
	}
}
