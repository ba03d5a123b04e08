// Package jsts owns inspect_file's JavaScript, TypeScript and TSX
// outline. A tokenizer (tokens.go) knows what hides a brace — strings,
// comments, template literals with their substitutions, regular
// expressions (a '/' where an expression can start) and JSX elements in
// JavaScript and TSX — and gives each as one token; a statement reader
// with automatic semicolon insertion (statements.go, declarations.go,
// members.go) delimits the top-level statements and outlines imports,
// variable declarations, functions, classes with their methods, and
// TypeScript's interfaces, type aliases and enums, the entries
// tree-sitter's grammars gave (see jsts_test.go for where they differ).
//
// The tokenizer is this package's own, not tdewolff/parse's js lexer
// that shebang uses (issue 36 asked for one JavaScript lexer; see
// lexer_test.go for inputs where the two must differ): that lexer has no
// JSX mode (in JSX text `<p>it's</p>` opens a string there and
// `<a>http://x</a>` a comment that hides the closing tag), no token for
// TypeScript's decorators, and it leaves the choice between a regular
// expression and a division to its caller, which is most of what a
// JavaScript tokenizer decides.
package jsts
