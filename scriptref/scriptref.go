package scriptref

import (
	"strconv"
	"strings"

	"hpatch-router/ident"
	"hpatch-router/rows"
)

// RefPrefix starts every retained-script reference, "@shell/<id>".
const RefPrefix = "@shell/"

// ScriptDirective starts a rerun line, `#!script=@shell/<id>`.
const ScriptDirective = "#!script="

// RefError is why a text is not a retained-script reference. Err is the
// id's *ident.Error, or nil when the text does not start with RefPrefix.
type RefError struct {
	Ref string
	Err error
}

func (e *RefError) Error() string {
	ref := clipRef(e.Ref)
	if e.Err == nil {
		return "reference " + ref + " does not start with " + RefPrefix + "; use the script_ref of a retained call"
	}
	return "reference " + ref + " is not a retained script: " + e.Err.Error()
}

func (e *RefError) Unwrap() error { return e.Err }

// FormatRef returns the reference "@shell/<id>" of an artifact id.
func FormatRef(id string) string { return RefPrefix + id }

// ParseRef returns the artifact id of a reference: exactly RefPrefix
// followed by an id that ident.Artifact accepts, nothing around it. Errors
// are *RefError values.
func ParseRef(ref string) (string, error) {
	id, ok := strings.CutPrefix(ref, RefPrefix)
	if !ok {
		return "", &RefError{Ref: ref}
	}
	if err := ident.Artifact(id); err != nil {
		return "", &RefError{Ref: ref, Err: err}
	}
	return id, nil
}

// ScriptReference reports a rerun request and the artifact id it names.
// ok is true only when the whole input is one script directive line (see
// Directive) whose reference ParseRef accepts; package shebang answers the
// other script directive lines with a diagnostic.
func ScriptReference(input string) (id string, ok bool) {
	ref, ok := Directive(input)
	if !ok {
		return "", false
	}
	id, err := ParseRef(ref)
	return id, err == nil
}

// Directive reports whether input is a sole `#!script=` line: one line
// (one final LF, CRLF or CR allowed) that, without the ASCII blanks
// around it, starts with ScriptDirective. It returns the text after the
// directive without its surrounding blanks. These are the blanks every
// directive line tolerates, so " #!script=@shell/a" is a rerun as
// "#!script=@shell/a" is.
func Directive(input string) (ref string, ok bool) {
	line, _, after := rows.Cut(input)
	if after != "" {
		return "", false
	}
	rest, ok := strings.CutPrefix(trimBlank(line), ScriptDirective)
	if !ok {
		return "", false
	}
	return trimBlank(rest), true
}

// trimBlank trims ASCII spaces and tabs, the blanks a directive line
// tolerates around its words.
func trimBlank(s string) string { return strings.Trim(s, " \t") }

// clipRef quotes a reference for a one-line message, shortened to 80 bytes.
func clipRef(s string) string {
	if len(s) > 80 {
		return strconv.Quote(s[:80]) + "…"
	}
	return strconv.Quote(s)
}
