//go:build !linux

package main

import (
	"context"
	"fmt"

	"hpatch-router/shebang"
	"hpatch-router/worker/snapshot"
)

// Off Linux the portable subcommands (translate, codex-config, version)
// work; serve, doctor and the worker entry stop with one line.

func runServe(_ context.Context, _ []string, s stdio) int { return needsLinux("serve", s) }

func runDoctor(_ context.Context, _ []string, s stdio) int { return needsLinux("doctor", s) }

func runTools(_ context.Context, _ []string, s stdio) int { return needsLinux("tools", s) }

func translateTool(_, _, _ string, _ shebang.Options, s stdio) int {
	return needsLinux("translate --tool", s)
}

func runWorker(_ []string, s stdio) int { return needsLinux("shell", s) }

func needsLinux(what string, s stdio) int {
	fmt.Fprintf(s.err, "hpatch-router %s: %v\n", what, snapshot.ErrNeedsLinux)
	return 1
}
