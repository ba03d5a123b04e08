package shebang

import (
	"hpatch-router/rows"
	"strings"

	"github.com/tdewolff/parse/v2/js"
	"mvdan.cc/sh/v3/syntax"
)

// The recovery rules of A16 and DESIGN §9 concern JavaScript on the wrong
// tool: Code Mode JavaScript sent to `shell` runs as the exec carrier it
// already is, and an `exec` call that calls tools.exec_command directly gets
// a pointer to `shell`. Both only add notices; the script runs unchanged.

// recoveryNotice and execNotice are printed by text(...) in the carrier.
const (
	recoveryNotice = "shell: note: this input is Code Mode JavaScript, so it ran unchanged as an exec call; send JavaScript to exec, and programs to shell as plain text (e.g. #!python3)."
	execNotice     = "exec: note: tools.exec_command is available through the shell tool: send the program itself (e.g. #!python3 or a bash script) with no JavaScript or quoting."
)

// jsWarnings are the shell warnings of the command strings inside
// recovered JavaScript: every string and template literal, decoded, is
// scanned as Bash.
func jsWarnings(src string) []string {
	ast := parseJS(src)
	if ast == nil {
		return nil
	}
	var f jsFacts
	js.Walk(&f, ast)
	var out []string
	for _, s := range f.strings {
		out = mergeWarnings(out, shellWarnings(s, syntax.LangBash))
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// AnnotateExec adds one notice to a model `exec` call whose JavaScript
// calls tools.exec_command directly, pointing the model to `shell`. The
// script itself is unchanged; a first-line `// @exec:` pragma stays first
// because Codex reads it only there. Annotated input is returned as is with
// changed=false, so replaying a call never stacks notices.
func AnnotateExec(js string) (out string, changed bool) {
	stmt := textStatement(execNotice)
	if strings.Contains(js, stmt) {
		return js, false
	}
	if !callsExecCommand(js) {
		return js, false
	}
	return insertAfterPragma(js, stmt+"\n"), true
}

// insertAfterPragma inserts text at the top of a script, after a first-line
// `// @exec:` pragma when there is one.
func insertAfterPragma(js, text string) string {
	first, term, rest := rows.Cut(js)
	if !strings.HasPrefix(trimBlank(first), "// @exec:") {
		return text + js
	}
	if term == "" { // pragma without a terminator
		return js + "\n" + text
	}
	return first + term + text + rest
}

// callsExecCommand reports a call of tools.exec_command (or
// tools["exec_command"], optionally through ?.) in JavaScript code, so a
// mention in a comment or a string is not one. Text that does not parse as
// JavaScript calls nothing: Codex rejects it before it runs.
func callsExecCommand(src string) bool {
	ast := parseJS(src)
	if ast == nil {
		return false
	}
	var f jsFacts
	js.Walk(&f, ast)
	return f.execCommand
}
