package main

import "fmt"

// runWorker is replaced by the worker work (issue 4).
func runWorker(_ []string, s stdio) int {
	fmt.Fprintln(s.err, "shell: worker is not built yet")
	return 126
}
