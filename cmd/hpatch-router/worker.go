//go:build linux

package main

import (
	"os"

	"hpatch-router/worker"
)

// runWorker runs the worker (argv[0] "shell"). The worker needs the real
// descriptors — children inherit them and a terminal must stay a
// terminal — so it uses the process's own streams when s holds them.
func runWorker(args []string, s stdio) int {
	return worker.Main(args, file(s.in, os.Stdin), file(s.out, os.Stdout), file(s.err, os.Stderr))
}

func file(v any, def *os.File) *os.File {
	if f, ok := v.(*os.File); ok {
		return f
	}
	return def
}
