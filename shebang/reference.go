package shebang

import (
	"errors"

	"hpatch-router/scriptref"
)

// scriptDirectiveDiag is Translate's answer to a sole script directive
// (scriptref.Directive): a malformed reference says why; a valid one is a
// rerun, which only a caller holding the retained scripts can resolve
// (scriptref.ScriptReference).
func scriptDirectiveDiag(ref string) *Diagnostic {
	if _, err := scriptref.ParseRef(ref); err != nil {
		msg := "invalid #!script= line: " + err.Error()
		if errors.Unwrap(err) != nil { // the RefError without a cause already says what to write
			msg += "; write #!script=@shell/<id> with the script_ref of a retained call"
		}
		return diag(1, msg)
	}
	return diag(1, "#!script="+ref+" reruns a retained script, which only the router can resolve; translate the script's content instead")
}
