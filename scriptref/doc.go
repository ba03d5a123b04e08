// Package scriptref owns the grammar of a retained-script reference: the
// words a model writes to name a script the router kept, and the rerun
// line that runs one again.
//
// A reference is RefPrefix "@shell/" followed by an artifact id that
// ident.Artifact accepts, and nothing else: no blanks around it, no second
// word (ParseRef; FormatRef writes one). A rerun is an input that is one
// `#!script=` line (ScriptDirective): ASCII spaces or tabs may stand
// before `#!`, after `=` and at the end, as on every directive line, and
// one final LF, CRLF or CR may follow; any other line makes it an ordinary
// input (Directive). ScriptReference reports a rerun whose reference
// parses. So:
//
//   - "  #!script=@shell/a" is a rerun of @shell/a (leading blanks are
//     tolerated like on any directive line);
//   - "#!script=@shell/a b" is not: an id holds no blank, so this is not a
//     reference (and a call_id with a space is never retained, so no
//     script could answer to it);
//   - "#!script=@shell/.hpatch-tmp-x" is not: ids starting with
//     ".hpatch-tmp-" name the store's temporary files, never a script
//     (likewise ".runtime", the launcher link).
//
// A reference that does not parse is a *RefError, one line without a tool
// prefix that wraps the id's *ident.Error when the prefix was right.
//
// Everyone who reads or writes a reference uses this package: shebang
// (a sole `#!script=` line that is not a rerun is its diagnostic), the
// router (reruns, retention reports), retain (resolution and the `in
// @shell/<id>` lines of the hpatch grammar) and the worker (`hread
// @shell/<id>`). It is a leaf that imports only the standard library and
// the leaves ident and rows, so none of them imports another for the
// grammar.
package scriptref
