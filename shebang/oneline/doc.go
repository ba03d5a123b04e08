// Package oneline owns how the worker command `shell …` is written on one
// physical line that every POSIX shell reads byte for byte — bash, zsh
// (with or without RC_QUOTES), dash as Debian's /bin/sh, ksh93, mksh —
// whatever shell Codex picks from the user's passwd entry, in any locale.
//
// Each argv value is written bare when it is nonempty and made only of
// [A-Za-z0-9_./-], else in POSIX single quotes with a ' written as \'
// outside the quotes (never two quote characters in a row inside one
// quoted segment, so zsh's RC_QUOTES cannot merge two segments). Single
// quotes keep every byte, but a line cannot show LF, CR, the other C0
// controls (TAB excepted), DEL or invisible runes (C1 controls, zero-width
// and bidi marks, line and paragraph separators, and the rest that
// unicode.IsPrint refuses). A body holding one is written in the escape
// form — \\, \n, \r and \xHH for each byte of the other unshowable ones —
// and the helper gets the option -e right after `shell` (as in echo -e):
//
//	shell python3 'print(1)'
//	shell -e python3 'import sys\nprint(1)\n'
//
// Only the helper decodes the escape form (ParseArgs); no shell ever
// interprets it. Interpreter fields are never escaped: Command refuses a
// field that is not showable, and package shebang rejects such a shebang
// before anything is rendered.
//
// The package is a leaf (standard library only) because both package
// shebang, which encodes, and the fixed `shell` helper, which decodes,
// import it; the helper must stay small.
package oneline
