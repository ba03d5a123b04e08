package retain

import (
	"strings"
	"testing"

	"hpatch-router/hpatch"
)

// Issue 25 item 2: an edit written for another tool gets one line naming
// the grammar hpatch expects, and where workspace patches of that form go.
func TestParsePatchForeignEdits(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		want     []string
	}{
		{"apply_patch envelope", "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n", 1,
			[]string{"apply_patch envelope, not an hpatch edit", "`in PATH` or `in @shell/<id>`", "`type TARGET VALUE`", "`add DEST VALUE`", "workspace's own patch tool"}},
		{"apply_patch envelope after a blank line", "\n*** Begin Patch\n*** Add File: b\n+b\n*** End Patch", 2,
			[]string{"apply_patch envelope"}},
		{"unified diff", "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n", 1,
			[]string{"unified diff, not an hpatch edit", "`in @shell/<id>`", "workspace's own patch tool"}},
		{"git diff", "diff --git a/x b/x\n--- a/x\n+++ b/x\n", 1, []string{"unified diff"}},
		{"JSON", `{"in":"@shell/x","type":"1:abcd","value":"y"}`, 1,
			[]string{"not JSON", "`in @shell/<id>`", "workspace's own patch tool"}},
		{"pretty JSON", "{\n  \"patch\": \"in @shell/x\"\n}\n", 1, []string{"not JSON"}},
		{"Markdown fence", "```\nin @shell/x\ntype 1:abcd \"y\"\n```", 1, []string{"not a Markdown fence", "without ``` lines"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePatch(tc.in)
			pe, ok := err.(*hpatch.Error)
			if !ok {
				t.Fatalf("ParsePatch = %v; want a *hpatch.Error", err)
			}
			msg := err.Error()
			if pe.Line != tc.line || strings.ContainsAny(msg, "\r\n") || strings.HasPrefix(msg, "hpatch:") {
				t.Fatalf("error %q at line %d; want one line without a prefix at line %d", msg, pe.Line, tc.line)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
	// Edits that merely mention those shapes are edits.
	for _, in := range []string{
		"in @shell/x\ntype 1:abcd \"*** Begin Patch\"\n",
		"in a.md\nadd EOF <<PATCH\n```python\n--- a\n+++ b\nPATCH\n",
		"  in @shell/x\ntype 1:abcd \"{\\\"cmd\\\":1}\"",
	} {
		if err := foreignEdit(in); err != nil {
			t.Errorf("foreignEdit(%q) = %v; an edit is not foreign", in, err)
		}
		if _, err := ParsePatch(in); err != nil && strings.Contains(err.Error(), "not an hpatch edit") {
			t.Errorf("ParsePatch(%q) = %v", in, err)
		}
	}
}
