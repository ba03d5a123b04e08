// Package grammar checks the grammars a declared tool constrains the
// model's input with (DESIGN §12) before they reach the API, where a broken
// one would fail every request of every thread: Lark (CheckLark) and
// regular expressions (CheckRegex).
//
// The API's grammar engine reads a subset of Lark and compiles regular
// expressions without backtracking. Lark's own regex is Python's, so a
// grammar that Lark accepts may still use what neither Go's regexp nor the
// API can run: lookahead and lookbehind ((?=, (?!, (?<=, (?<!),
// backreferences (\1, (?P=name)), atomic groups and possessive
// quantifiers, conditionals, \Z (write \z) and verbose mode (the x flag).
// Those are reported, each naming the construct, rather than passed on.
//
// Problems are values with the line of the grammar they are on, so the
// registry can place them in the tool file. It imports nothing of this
// module.
package grammar
