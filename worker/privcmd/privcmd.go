// Package privcmd is the contract between the worker's shell evaluation and
// the private commands it runs in-process (hread, hgrep, hsymbol,
// inspect_file; package shebang owns their names). Commands import it, the
// worker dispatches to them, and neither imports the other.
//
// It owns the commands' limits (limits.go: input, output, time, memory and
// nesting depth, each value with its reason; Bounds is the table the worker
// dispatches with), the one way they open files the model names
// (file.go: regular files only, never blocking, at most Limits.Input bytes
// as one snapshot) and the one way they start a child process (Start: it
// dies with the worker).
package privcmd

import (
	"context"
	"io"
	"os"
)

// Env is what a private command sees of the shell evaluation running it:
// the same standard streams (after redirections and pipes), the
// evaluation's current directory and exported environment.
type Env struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Dir     string   // the evaluation's current directory, absolute
	Environ []string // exported variables as KEY=VALUE
	// Scripts is the thread's retained-script directory (for @shell/<id>
	// references); nil when the thread has none.
	Scripts *os.Root
	// Limits bound the command's input, output, time and memory (Bounds).
	Limits Limits
}

// Getenv returns the value of key in the exported environment.
func (e *Env) Getenv(key string) string {
	for i := len(e.Environ) - 1; i >= 0; i-- {
		kv := e.Environ[i]
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:]
		}
	}
	return ""
}

// Func runs one private command. args[0] is the command's name. The result
// is the exit status; diagnostics go to env.Stderr as one line each,
// prefixed with the command's name.
type Func func(ctx context.Context, env *Env, args []string) int
