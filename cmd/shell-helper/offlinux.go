//go:build !linux

package main

import (
	"os"

	"hpatch-router/worker/snapshot"
)

// main refuses off Linux in the helper's one-line form, with the status a
// shell uses for a command it cannot run.
func main() {
	os.Stderr.WriteString("shell: " + snapshot.ErrNeedsLinux.Error() + "\n")
	os.Exit(126)
}
