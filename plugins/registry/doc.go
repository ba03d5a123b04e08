// Package registry is the one owner of which custom tools the router adds
// beside a Code Mode exec owner (DESIGN §12): the built-in `shell` and
// `hpatch` (declared in package plugins) and the tools a user declares in
// TOML files in a tools directory.
//
// Load reads a directory's direct regular *.toml files in lexical order
// and validates the whole set before anything is exposed: known keys
// only, names [A-Za-z_][A-Za-z0-9_-]{0,63} unique across files and none of
// the reserved ones, run under the shebang selector rules, cmd and params
// under the #!cmd= and #!params= rules (package shebang owns all three), a
// bounded max_input_bytes, and a format that is free text or a grammar
// that package grammar accepts (inline, or a definition_file next to the
// tool file, opened confined to the directory). Every problem is one line
// `FILE:LINE: what; how to fix`, and all of them are reported at once. A
// set with problems is never used: the caller keeps the set it had.
//
// The directory and every file read must pass the caller's ownership rule
// (LoadOptions.Owned; serve and the tools command give it the runtime
// root's rule from package snapshot), so nothing another user can write,
// and nothing from a workspace, adds a tool. A Set is immutable once
// loaded; Watch (watch.go) swaps whole sets.
package registry
