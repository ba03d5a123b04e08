package main

import (
	"context"
	"fmt"
)

// runTranslate is replaced by the translator work (issue 2).
func runTranslate(_ context.Context, _ []string, s stdio) int {
	fmt.Fprintln(s.err, "hpatch-router: translate is not built yet")
	return 1
}
