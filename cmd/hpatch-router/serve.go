package main

import (
	"context"
	"fmt"
)

// runServe is replaced by the router work (issue 3).
func runServe(_ context.Context, _ []string, s stdio) int {
	fmt.Fprintln(s.err, "hpatch-router: serve is not built yet")
	return 1
}
