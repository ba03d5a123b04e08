// Package golang owns inspect_file's Go outline: imports, constants,
// variables, types, functions and methods (with their receiver type) at
// the top level, read by go/parser; a file with syntax errors gives what
// the parser recovered, with ParseComplete false.
package golang
