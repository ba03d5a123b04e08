package hpatch

import (
	"reflect"
	"strings"
	"testing"
)

// Workspace sections: Parse keeps one section per `in`/`new` line,
// with the path as written, what it does with the file, and for `new` its
// exact content; the workspace resolver resolves and merges them.
func TestParseFileSections(t *testing.T) {
	type sec struct {
		Path    string
		Line    int
		Kind    SectionKind
		Dest    string
		Content string
		Ops     int
	}
	tests := []struct {
		name, patch string
		want        []sec
	}{
		{"edit", "in src/a.go\ntype 1:abcd \"x\"\nadd EOF \"y\"", []sec{{"src/a.go", 1, SectionEdit, "", "", 2}}},
		{"absolute path", "in /w/a.go\ntype 1:abcd \"x\"", []sec{{"/w/a.go", 1, SectionEdit, "", "", 1}}},
		{"quoted path with blanks", "in \"my dir/a b.txt\"  \ntype 1:abcd \"x\"", []sec{{"my dir/a b.txt", 1, SectionEdit, "", "", 1}}},
		{"quoted path starting with @", "in \"@shell/x\"\nrm", []sec{{"@shell/x", 1, SectionRemove, "", "", 0}}},
		{"rm", "in old.txt\n  rm \t\n", []sec{{"old.txt", 1, SectionRemove, "", "", 0}}},
		{"mv alone", "in a.txt\nmv b/c.txt", []sec{{"a.txt", 1, SectionEdit, "b/c.txt", "", 0}}},
		{"mv then edits", "in a.txt\nmv \"b c.txt\"\ntype \"x\" 2 \"y\"", []sec{{"a.txt", 1, SectionEdit, "b c.txt", "", 1}}},
		{"new with a JSON string: rows in the VALUE's line ending", "new n.txt\ntype \"a\\r\\nb\"", []sec{{"n.txt", 1, SectionNew, "", "a\r\nb\r\n", 0}}},
		{"new: a last row without a line ending gets LF", "new n.txt\ntype \"alpha\\nbeta\"", []sec{{"n.txt", 1, SectionNew, "", "alpha\nbeta\n", 0}}},
		{"new: one row", "new n.txt\ntype \"x\"", []sec{{"n.txt", 1, SectionNew, "", "x\n", 0}}},
		{"new: a VALUE that ends its rows stays", "new n.txt\ntype \"a\\n\\n\"", []sec{{"n.txt", 1, SectionNew, "", "a\n\n", 0}}},
		{"new: mixed endings, the last row takes the most frequent", "new n.txt\ntype \"a\\r\\nb\\r\\nc\\nd\"", []sec{{"n.txt", 1, SectionNew, "", "a\r\nb\r\nc\nd\r\n", 0}}},
		{"new with a heredoc keeps each line's ending", "new n.txt\r\n\r\ntype <<PATCH\r\na\r\nb\nPATCH\r\n", []sec{{"n.txt", 1, SectionNew, "", "a\r\nb\n", 0}}},
		{"new empty file", "new e\ntype \"\"", []sec{{"e", 1, SectionNew, "", "", 0}}},
		{"several files, the same path twice stays two sections", "in a\nrm\nnew b\ntype \"x\"\nin c\ntype 1:abcd \"\"\nin c\nadd EOF \"z\"",
			[]sec{{"a", 1, SectionRemove, "", "", 0}, {"b", 3, SectionNew, "", "x\n", 0}, {"c", 5, SectionEdit, "", "", 1}, {"c", 7, SectionEdit, "", "", 1}}},
		{"keywords are paths after in", "in rm\ntype 1:abcd \"x\"\nin new\nrm", []sec{{"rm", 1, SectionEdit, "", "", 1}, {"new", 3, SectionRemove, "", "", 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.patch)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Workspace {
				t.Fatal("a file edit is not marked Workspace")
			}
			var got []sec
			for _, s := range p.Sections {
				got = append(got, sec{s.Path, s.Line, s.Kind, s.Dest, string(s.Content), len(s.Ops)})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseFileRejects(t *testing.T) {
	tests := []struct {
		name, patch string
		line        int
		want        string
	}{
		{"in without operation", "in a\nin b\nrm", 1, "`in a` has no `type`, `add`, `mv` or `rm` line after it"},
		{"in without operation at the end", "in a\nrm\nin b", 3, "`in b` has no"},
		{"new without content", "new a\nin b\nrm", 1, "`new a` needs its content on the next line: `type VALUE`"},
		{"new at the end", "new a\n", 1, "needs its content"},
		{"new takes no add", "new a\nadd EOF \"x\"", 2, "not `add`"},
		{"new takes a VALUE, not a target", "new a\ntype 1:abcd \"x\"", 2, "VALUE must be a JSON string"},
		{"edit after new", "new a\ntype \"x\"\ntype 1:abcd \"y\"", 3, "a new file is written whole"},
		{"edit after rm", "in a\nrm\ntype 1:abcd \"y\"", 3, "follows `rm`"},
		{"rm after an edit", "in a\ntype 1:abcd \"y\"\nrm", 3, "must come right after `in a`"},
		{"mv twice", "in a\nmv b\nmv c", 3, "must come right after"},
		{"rm with an argument", "in a\nrm a", 2, "takes no argument"},
		{"mv without destination", "in a\nmv", 2, "needs a destination"},
		{"mv before in", "mv b", 1, "needs an `in PATH` line"},
		{"rm of a new file", "new a\ntype \"\"\nrm", 3, "needs an `in PATH` line"},
		{"path with a blank", "in a b\nrm", 1, "has a blank; quote it"},
		{"bare path starting with @", "new @a\ntype \"\"", 1, "starts with @"},
		{"empty quoted path", "in \"\"\nrm", 1, "empty"},
		{"quoted path with trailing text", "in \"a\" b\nrm", 1, "not one JSON string"},
		{"in @ that is not a script", "in @a\nrm", 1, "neither @shell/<id> nor a path"},
		{"new inside a script edit", "in @shell/s\ntype 1:abcd \"x\"\nnew a\ntype \"\"", 3, "not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.patch)
			pe, ok := err.(*Error)
			if !ok {
				t.Fatalf("got %T %v, want a *Error", err, err)
			}
			if pe.Line != tc.line || !strings.Contains(err.Error(), tc.want) || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("got %q (line %d), want line %d containing %q", err, pe.Line, tc.line, tc.want)
			}
		})
	}
}

// A file section's Apply is the same edit as a script's, headed by its
// path and bounded by the caller's limit.
func TestSectionApplyFile(t *testing.T) {
	p, err := Parse("in docs/a.md\ntype \"two\" \"2\"")
	if err != nil {
		t.Fatal(err)
	}
	e, err := p.Sections[0].Apply([]byte("one\r\ntwo\r\nthree"), 64)
	if err != nil {
		t.Fatal(err)
	}
	if string(e.New) != "one\r\n2\r\nthree" || !strings.HasPrefix(e.Report, "docs/a.md\n1:") {
		t.Fatalf("got %q, report %q", e.New, e.Report)
	}
	if _, err := p.Sections[0].Apply([]byte("one\ntwo\n"), 4); err == nil || !strings.Contains(err.Error(), "the edited docs/a.md would be 6 bytes; at most 4") {
		t.Fatalf("limit: %v", err)
	}
}
