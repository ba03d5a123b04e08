package retain

import (
	"fmt"

	"hpatch-router/ident"
)

// Retain applies rules it does not own: ids are package ident's, the
// thread directory layout is package ident's too, and the reference grammar
// (`@shell/<id>`, `#!script=@shell/<id>`) is package scriptref's.

// checkThread is ident.Thread with the context a store error needs.
func checkThread(thread string) error {
	if err := ident.Thread(thread); err != nil {
		return fmt.Errorf("unsafe thread: %w", err)
	}
	return nil
}

// clip shortens s for a one-line message and quotes nothing itself.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
