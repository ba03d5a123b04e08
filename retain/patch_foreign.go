package retain

import (
	"hpatch-router/shebang"

	"hpatch-router/hpatch"
)

// hpatchGrammar is the shape of an edit, for diagnostics that must show it.
const hpatchGrammar = "`in PATH` or `in @shell/<id>`, then `type TARGET VALUE` or `add DEST VALUE` with rows from hread"

// foreignEdit refuses an edit written for another tool (issue 25): an
// apply_patch envelope, a unified diff, JSON or a Markdown fence
// (shebang.ForeignSyntax, the one recognizer of those shapes). None of
// them can start a valid edit, whose first word is `in` or `new`, so the
// answer names the grammar hpatch expects instead of the first unknown
// word, and says where a patch in that form goes.
func foreignEdit(text string) error {
	h, line := shebang.ForeignSyntax(text)
	var what string
	switch h {
	case shebang.HabitNone:
		return nil
	case shebang.HabitApplyPatch:
		what = "this is an apply_patch envelope, not an hpatch edit"
	case shebang.HabitDiff:
		what = "this is a unified diff, not an hpatch edit"
	case shebang.HabitJSON:
		what = "hpatch takes its edit lines, not JSON"
	default:
		return hpatch.ErrorAt(line, "hpatch takes its edit lines, not a Markdown fence: send %s without ``` lines", hpatchGrammar)
	}
	return hpatch.ErrorAt(line, "%s; hpatch takes %s; workspace files are also edited with the workspace's own patch tool (apply_patch)", what, hpatchGrammar)
}
