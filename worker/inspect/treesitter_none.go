//go:build !cgo

package inspect

// treeSitterParser returns the tree-sitter outliner for lang, or nil when
// this build has none.
func treeSitterParser(lang string) outliner { return nil }
