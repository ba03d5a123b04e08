// Package python owns inspect_file's Python outline. A tokenizer
// (tokens.go) reads the file as Python's does — strings with every
// prefix, triple quotes and f-string replacement fields, comments,
// brackets, backslash continuations — into logical lines; the
// statements and their blocks follow tree-sitter's Python grammar's
// indentation rules (outline.go), so entries and spans are those of its
// syntax tree: imports, module-level assignments to plain names
// (UPPER_CASE ones as constants), classes with the functions their bodies
// define directly, and functions; decorated definitions span from their
// first decorator.
package python
