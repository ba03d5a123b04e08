package snapshot

import (
	"errors"
	"runtime"
)

// ErrNeedsLinux is the one line every entry point stops with off Linux:
// the helper, the worker and its private commands rest on Linux
// mechanisms (a sealed memfd for the body, exec through /proc/self/fd,
// pidfd and the child subreaper, prlimit, the peer identity of a loopback
// connection). docs/macos.md lists what replaces each on macOS.
var ErrNeedsLinux = errors.New("the shell worker needs Linux for now (this is " + runtime.GOOS + "); docs/macos.md has the macOS plan")
