package hpatch

import (
	"hpatch-router/rows"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var citeRE = regexp.MustCompile(`\{(\d+)\}`)

// cite expands {N} in patch to the LINE:HASH of row N of base, as a model
// would copy it from hread.
func cite(t *testing.T, patch, base string) string {
	baseRows := rows.Split([]byte(base))
	return citeRE.ReplaceAllStringFunc(patch, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		if n < 1 || n > len(baseRows) {
			t.Fatalf("test cites row %d of a %d-row baseline", n, len(baseRows))
		}
		return baseRows[n-1].Cite()
	})
}

func applyOne(t *testing.T, base, patch string) (string, string, error) {
	t.Helper()
	p, err := Parse(cite(t, patch, base))
	if err != nil {
		return "", "", err
	}
	edits, err := applyScripts(p, map[string][]byte{"s": []byte(base)})
	if err != nil {
		return "", "", err
	}
	return string(edits[0].New), edits[0].Report, nil
}

const abcd = "a\nb\nc\nd\n"

// testLimit is the size limit the tests apply under: the store's.
const testLimit = 1 << 20

// applyScripts applies each script section of p to its baseline, as the
// retained-script store does.
func applyScripts(p *Patch, baseline map[string][]byte) ([]Edit, error) {
	edits := make([]Edit, 0, len(p.Sections))
	for _, s := range p.Sections {
		e, err := s.Apply(baseline[s.ID], testLimit)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e)
	}
	return edits, nil
}

func TestApplyRules(t *testing.T) {
	tests := []struct {
		name, base, patch, want string
	}{
		{"type replaces the content of one row", abcd, "in @shell/s\ntype {2} \"B\"", "a\nB\nc\nd\n"},
		{"type VALUE with line breaks becomes several rows", abcd, "in @shell/s\ntype {2} \"B1\\nB2\"", "a\nB1\nB2\nc\nd\n"},
		{"type VALUE trailing line break adds no row", abcd, "in @shell/s\ntype {2} \"B\\n\"", "a\nB\nc\nd\n"},
		{"type range replaces rows inclusively", abcd, "in @shell/s\ntype {2}..{3} \"X\"", "a\nX\nd\n"},
		{"type range of one row", abcd, "in @shell/s\ntype {2}..{2} \"X\"", "a\nX\nc\nd\n"},
		{"empty VALUE deletes rows with their terminators", abcd, "in @shell/s\ntype {2}..{3} \"\"", "a\nd\n"},
		{"empty heredoc deletes", abcd, "in @shell/s\ntype {1} <<PATCH\nPATCH", "b\nc\nd\n"},
		{"heredoc VALUE is raw", abcd, "in @shell/s\ntype {1} <<PATCH\n  \"q\" \\n $x\t\nin @shell/x\nPATCH\n",
			"  \"q\" \\n $x\t\nin @shell/x\nb\nc\nd\n"},
		{"heredoc blank line is an empty row", abcd, "in @shell/s\ntype {1} <<PATCH\n\nPATCH", "\nb\nc\nd\n"},
		{"last targeted row keeps its missing terminator", "a\nb", "in @shell/s\ntype {2} \"x\\ny\"", "a\nx\ny"},
		{"add inserts whole rows before DEST", abcd, "in @shell/s\nadd {1} \"z\"", "z\na\nb\nc\nd\n"},
		{"add EOF appends", abcd, "in @shell/s\nadd EOF <<PATCH\ne\nf\nPATCH", abcd + "e\nf\n"},
		{"add EOF after an unterminated row keeps the file unterminated", "a\nb", "in @shell/s\nadd EOF \"c\"", "a\nb\nc"},
		{"add EOF to an empty script", "", "in @shell/s\nadd EOF \"c\"", "c\n"},
		{"add EOF after replacing the unterminated last row", "a\nb", "in @shell/s\ntype {2} \"B\"\nadd EOF \"c\"", "a\nB\nc"},
		{"adds at one insertion point insert in the order written", abcd, "in @shell/s\nadd {2} \"1\"\nadd {2} \"2\"", "a\n1\n2\nb\nc\nd\n"},
		{"add at the first row of a replaced range goes before the replacement", abcd,
			"in @shell/s\ntype {2}..{3} \"B\"\nadd {2} \"i\"", "a\ni\nB\nd\n"},
		{"add \\n inserts an empty row", abcd, "in @shell/s\nadd {2} \"\\n\"", "a\n\nb\nc\nd\n"},
		{"targets resolve against one baseline", abcd,
			"in @shell/s\ntype {1} \"A1\\nA2\\nA3\"\ntype {4} \"D\"\nadd {3} \"x\"", "A1\nA2\nA3\nb\nx\nc\nD\n"},
		{"CRLF script keeps CRLF", "a\r\nb\r\n", "in @shell/s\ntype {1} \"x\\ny\"\nadd EOF \"z\"", "x\r\ny\r\nb\r\nz\r\n"},
		{"CRLF VALUE becomes rows with the file's ending", "a\nb\n", "in @shell/s\ntype {1} \"x\\r\\ny\"", "x\ny\nb\n"},
		{"CR script keeps CR", "a\rb\r", "in @shell/s\nadd {2} \"x\"", "a\rx\rb\r"},
		{"mixed endings use the dominant one", "a\r\nb\r\nc\n", "in @shell/s\nadd EOF \"d\"", "a\r\nb\r\nc\nd\r\n"},
		{"replaced row keeps its own terminator in a mixed file", "a\nb\r\nc\n", "in @shell/s\ntype {2} \"x\\ny\"", "a\nx\ny\r\nc\n"},
		{"an empty unterminated last row gets the file's ending", "a\nb", "in @shell/s\ntype {2} \"x\\n\\n\"", "a\nx\n\n"},
		{"appending an empty row after an unterminated row", "a\r\nb", "in @shell/s\nadd EOF \"\\n\"", "a\r\nb\r\n\r\n"},
		{"deleting the unterminated last row", "a\nb", "in @shell/s\ntype {2} \"\"", "a\n"},
		{"deleting every row", abcd, "in @shell/s\ntype {1}..{4} \"\"", ""},
		{"several in lines for one script merge", abcd, "in @shell/s\ntype {1} \"A\"\n\nin @shell/s\ntype {4} \"D\"", "A\nb\nc\nD\n"},
		{"blank lines, indentation and tabs are tolerated", abcd, "\n  in\t@shell/s  \n\n\ttype  {2}\t\"B\"  \n\n", "a\nB\nc\nd\n"},
		{"CRLF patch input", abcd, "in @shell/s\r\ntype {2} <<PATCH\r\nB\r\nPATCH\r\n", "a\nB\nc\nd\n"},
		{"JSON escapes and unicode", abcd, "in @shell/s\ntype {2} \"tab\\there \\u00e9 \\\"q\\\" 😀\"", "a\ntab\there é \"q\" 😀\nc\nd\n"},
		{"an empty row added after a lone CR stays a row (found by FuzzApplyCited)", "\n\r0", "in @shell/s\nadd {3} \"\\n\"", "\n\r\r0"},
		{"text target replaces the one row containing TEXT", abcd, "in @shell/s\ntype \"c\" \"C\"", "a\nb\nC\nd\n"},
		{"text target with COUNT replaces each matching row", "x1\ny\nx2\n", "in @shell/s\ntype \"x\" 2 \"z\"", "z\ny\nz\n"},
		{"add before a text target", abcd, "in @shell/s\nadd \"d\"  <<PATCH\nc2\nPATCH", "a\nb\nc\nc2\nd\n"},
		{"add before each of COUNT rows", "x1\ny\nx2\n", "in @shell/s\nadd \"x\"\t2 \"-\"", "-\nx1\ny\n-\nx2\n"},
		{"text target matches within the row, escapes decoded", "say \"hi\"\tnow\nb\n", "in @shell/s\ntype \"\\\"hi\\\"\\t\" \"x\"", "x\nb\n"},
		{"text target and cited rows together", abcd, "in @shell/s\ntype \"a\" \"A\"\ntype {4} \"D\"", "A\nb\nc\nD\n"},
		{"shebang row can be edited", "#!python3\nprint(1)\n", "in @shell/s\ntype {1} \"#!/usr/bin/env -S python3 -u\"", "#!/usr/bin/env -S python3 -u\nprint(1)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rep, err := applyOne(t, tc.base, tc.patch)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
			if !strings.HasPrefix(rep, "@shell/s\n") {
				t.Fatalf("report lacks the header: %q", rep)
			}
		})
	}
}

func TestApplyRejects(t *testing.T) {
	tests := []struct {
		name, base, patch string
		line              int
		want              string
	}{
		{"stale hash", abcd, "in @shell/s\ntype 2:0000 \"x\"", 2, "stale"},
		{"stale range end", abcd, "in @shell/s\ntype {1}..3:0000 \"x\"", 2, "stale"},
		{"stale add destination", abcd, "\nin @shell/s\nadd 4:0000 \"x\"", 3, "stale"},
		{"row out of range", abcd, "in @shell/s\ntype 9:0000 \"x\"", 2, "row 9 is past the end of @shell/s (4 rows; the last is `4:18ac d`)"},
		{"stale row shows the rows around it", abcd, "in @shell/s\ntype 2:0000 \"x\"", 2, "2:0000 is stale: row 2 of @shell/s is now `2:3e23 b` (around it: `1:ca97 a`, `3:2e7d c`); nothing was changed"},
		{"stale row finds where the cited text moved", "new\n" + abcd, "in @shell/s\ntype 2:3e23 \"x\"", 2, "2:3e23 is stale: row 2 of @shell/s is now `2:ca97 a` (around it: `1:1150 new`, `3:3e23 b`); the cited text may now be row `3:3e23 b`; nothing was changed"},
		{"any stale target rejects the whole edit", abcd, "in @shell/s\ntype {1} \"A\"\ntype 3:0000 \"C\"", 3, "stale"},
		{"overlapping ranges", abcd, "in @shell/s\ntype {1}..{3} \"x\"\ntype {3}..{4} \"y\"", 3, "overlap"},
		{"same row twice", abcd, "in @shell/s\ntype {2} \"x\"\ntype {2} \"y\"", 3, "overlap"},
		{"overlap across merged sections", abcd, "in @shell/s\ntype {2} \"x\"\nin @shell/s\ntype {1}..{3} \"y\"", 4, "overlap"},
		{"add inside a replaced range", abcd, "in @shell/s\ntype {2}..{3} \"x\"\nadd {3} \"y\"", 3, "falls inside"},
		{"range ends before it starts", abcd, "in @shell/s\ntype {3}..{2} \"x\"", 2, "ends before"},
		{"range cites one row with two hashes", abcd, "in @shell/s\ntype 2:0000..{2} \"x\"", 2, "two hashes"},
		{"target without hash", abcd, "in @shell/s\ntype 2 \"x\"", 2, "LINE:HASH"},
		{"uppercase hash", abcd, "in @shell/s\ntype 2:ABCD \"x\"", 2, "LINE:HASH"},
		{"short hash", abcd, "in @shell/s\ntype 2:abc \"x\"", 2, "LINE:HASH"},
		{"leading zero", abcd, "in @shell/s\ntype 02:abcd \"x\"", 2, "LINE:HASH"},
		{"row zero", abcd, "in @shell/s\ntype 0:abcd \"x\"", 2, "LINE:HASH"},
		{"negative row", abcd, "in @shell/s\ntype -1:abcd \"x\"", 2, "LINE:HASH"},
		{"type EOF", abcd, "in @shell/s\ntype EOF \"x\"", 2, "LINE:HASH"},
		{"add with a range", abcd, "in @shell/s\nadd {1}..{2} \"x\"", 2, "not a range"},
		{"add inserts nothing", abcd, "in @shell/s\nadd {1} \"\"", 2, "inserts nothing"},
		{"add empty heredoc", abcd, "in @shell/s\nadd EOF <<PATCH\nPATCH", 2, "inserts nothing"},
		{"missing target", abcd, "in @shell/s\ntype", 2, "needs a target"},
		{"missing VALUE", abcd, "in @shell/s\ntype {1}", 2, "no VALUE"},
		{"unterminated JSON string", abcd, "in @shell/s\ntype {1} \"abc", 2, "not one JSON string"},
		{"JSON with trailing text", abcd, "in @shell/s\ntype {1} \"a\" b", 2, "not one JSON string"},
		{"bare VALUE", abcd, "in @shell/s\ntype {1} abc", 2, "JSON string"},
		{"heredoc with another word", abcd, "in @shell/s\ntype {1} <<EOF\nx\nEOF", 2, "JSON string"},
		{"unterminated heredoc", abcd, "in @shell/s\ntype {1} <<PATCH\nx\n PATCH", 2, "no closing line"},
		{"NUL in VALUE", abcd, "in @shell/s\ntype {1} \"a\\u0000\"", 2, "NUL"},
		{"command before in", abcd, "type {1} \"x\"", 1, "before any `in"},
		{"unknown command", abcd, "in @shell/s\nreplace {1} \"x\"", 2, "unknown command"},
		{"script then file", abcd, "in @shell/s\ntype {1} \"x\"\nin a.go\nrm", 3, "either @shell/ scripts or workspace files, not both"},
		{"file then script", abcd, "in a.go\nrm\nin @shell/s\ntype {1} \"x\"", 3, "either @shell/ scripts or workspace files, not both"},
		{"rm in a script", abcd, "in @shell/s\nrm", 2, "needs a workspace file"},
		{"mv in a script", abcd, "in @shell/s\nmv @shell/t", 2, "needs a workspace file"},
		{"text matches no row", abcd, "in @shell/s\ntype \"zz\" \"x\"", 2, "\"zz\" matches no row of @shell/s (4 rows), not 1 row"},
		{"text target with a line break", abcd, "in @shell/s\ntype \"a\\nb\" \"x\"", 2, "\"a\\nb\" holds a line break, and a row never does; cite the rows as LINE:HASH..LINE:HASH"},
		{"text COUNT mismatch", "ab\nab\ncd\n", "in @shell/s\nadd \"ab\" \"x\"", 2, "\"ab\" matches 2 rows of @shell/s, not 1 row: `1:fb8e ab`, `2:fb8e ab`; cite one as LINE:HASH or give the COUNT"},
		{"text COUNT too high", "ab\nab\ncd\n", "in @shell/s\ntype \"ab\" 3 \"x\"", 2, "matches 2 rows of @shell/s, not 3 rows"},
		{"text COUNT zero", abcd, "in @shell/s\ntype \"a\" 0 \"x\"", 2, "COUNT \"0\""},
		{"empty text target", abcd, "in @shell/s\ntype \"\" \"x\"", 2, "matches every row"},
		{"text target glued to VALUE", abcd, "in @shell/s\ntype \"a\"\"x\"", 2, "needs a blank after its closing quote"},
		{"text target overlaps a row", "ab\ncd\n", "in @shell/s\ntype \"ab\" \"x\"\ntype {1} \"y\"", 3, "overlap"},
		{"traversing reference", abcd, "in @shell/../.runtime\ntype {1} \"x\"", 1, "separator"},
		{"launcher reference", abcd, "in @shell/.runtime\ntype {1} \"x\"", 1, "reserved"},
		{"in without reference", abcd, "in\ntype {1} \"x\"", 1, "`in` needs a file"},
		{"empty edit", abcd, "\n  \n", 0, "empty edit"},
		{"section without edits", abcd, "in @shell/s\ntype {1} \"x\"\nin @shell/t", 3, "no `type` or `add`"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := applyOne(t, tc.base, tc.patch)
			if err == nil {
				t.Fatal("edit accepted")
			}
			pe, ok := err.(*Error)
			if !ok {
				t.Fatalf("error %T %v is not a *Error", err, err)
			}
			if pe.Line != tc.line {
				t.Errorf("line = %d, want %d (%v)", pe.Line, tc.line, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || strings.HasPrefix(msg, "hpatch:") {
				t.Fatalf("error %q: want one line containing %q, without a tool prefix", msg, tc.want)
			}
		})
	}
}

func TestApplyReport(t *testing.T) {
	base := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	tests := []struct {
		name, patch string
		want        []string
	}{
		{"changed row with one row of context", "in @shell/s\ntype {5} \"five\"",
			[]string{"@shell/s", "4", "5five", "6"}},
		{"separate hunks are separated", "in @shell/s\ntype {2} \"two\"\ntype {8} \"eight\"",
			[]string{"@shell/s", "1", "2two", "3", "--", "7", "8eight", "9"}},
		{"adjacent hunks join", "in @shell/s\ntype {3} \"c\"\ntype {5} \"e\"",
			[]string{"@shell/s", "2", "3c", "4", "5e", "6"}},
		{"deletion is shown where it was", "in @shell/s\ntype {4}..{6} \"\"",
			[]string{"@shell/s", "3", "(deleted old rows 4..6)", "4 7"}},
		{"single-row deletion", "in @shell/s\ntype {1} \"\"",
			[]string{"@shell/s", "(deleted old row 1)", "1 2"}},
		{"inserted rows are numbered in the new script", "in @shell/s\nadd {2} \"x\\ny\"",
			[]string{"@shell/s", "1", "2x", "3y", "4 2"}},
		{"append at EOF", "in @shell/s\nadd EOF \"ten\"",
			[]string{"@shell/s", "9", "10ten"}},
		{"everything deleted", "in @shell/s\ntype {1}..{9} \"\"",
			[]string{"@shell/s", "(deleted old rows 1..9)", "(empty)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rep, err := applyOne(t, base, tc.patch)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, w := range tc.want {
				want = append(want, expandRow(w))
			}
			if got := strings.Split(strings.TrimSuffix(rep, "\n"), "\n"); !slices.Equal(got, want) {
				t.Fatalf("report\n%s\nwant\n%s", rep, strings.Join(want, "\n"))
			}
		})
	}
}

// expandRow turns the shorthand "5five" (row 5 reads "five") or "4 7"
// (row 4 reads "7") or "4" (row 4 reads "4") into a full report row;
// header, separator and markers are kept.
func expandRow(w string) string {
	if w == "" || w[0] < '0' || w[0] > '9' || w == "--" {
		return w
	}
	i := 0
	for i < len(w) && w[i] >= '0' && w[i] <= '9' {
		i++
	}
	num, text := w[:i], w[i:]
	switch {
	case text == "":
		text = num
	case text[0] == ' ':
		text = text[1:]
	}
	n, _ := strconv.Atoi(num)
	return rows.Row{Num: n, Text: []byte(text)}.Cite() + " " + text
}

func TestParseStructure(t *testing.T) {
	p, err := Parse("in @shell/a\ntype 1:e3b0..3:e3b0 <<PATCH\nx\nPATCH\nin @shell/b\nadd EOF \"y\"\nin @shell/a\nadd 2:e3b0 \"z\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sections) != 2 || p.Sections[0].ID != "a" || p.Sections[1].ID != "b" {
		t.Fatalf("sections %+v", p.Sections)
	}
	a := p.Sections[0]
	if len(a.Ops) != 2 || a.Ops[0].Kind != OpType || a.Ops[0].From.Line != 1 || a.Ops[0].To.Line != 3 ||
		a.Ops[1].Kind != OpAdd || a.Ops[1].Line != 8 || a.Ops[0].Value[0] != "x" {
		t.Fatalf("section a %+v", a)
	}
	if op := p.Sections[1].Ops[0]; !op.From.EOF || op.From.String() != "EOF" || op.Line != 6 {
		t.Fatalf("section b op %+v", op)
	}
}
