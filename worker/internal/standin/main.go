//go:build linux

// Command standin is the worker entry of cmd/hpatch-router without the
// router: worker tests fall back to it when the router package does not
// build at the moment (other work in progress), so the worker's own rules
// stay testable. It behaves like hpatch-router when argv[0] is "shell".
package main

import (
	"os"
	"path/filepath"

	"hpatch-router/worker"
)

func main() {
	if filepath.Base(os.Args[0]) != "shell" {
		os.Stderr.WriteString("standin: only the worker entry (argv[0] \"shell\") exists\n")
		os.Exit(2)
	}
	os.Exit(worker.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
