package privcmd

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"

	"hpatch-router/scriptref"
	"hpatch-router/shebang/bashquote"
	"hpatch-router/shebang/oneline"
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

// ExitTruncated is the exit status of every private command whose output
// the Output limit cut: what it printed is whole (complete rows, or a
// complete JSON envelope that says "truncated"), the rest is missing, and
// the notice says how to narrow the command. Not 0, because a cut answer
// is not the whole answer (`hgrep … > hits && use hits` and `set -e`
// scripts must not carry on as if it were); not 1, which means the
// command failed and printed nothing to use.
const ExitTruncated = 3

// ExitTimeLimit is the exit status of every private command stopped at
// the Time limit, the status timeout(1) gives, so a script tells "ran out
// of time" from "failed" the way it does for any other command. What was
// found before the deadline is printed; the notice says how to narrow.
const ExitTimeLimit = 124

// Func runs one private command. args[0] is the command's name. The result
// is the exit status; diagnostics go to env.Stderr as one line each,
// prefixed with the command's name.
type Func func(ctx context.Context, env *Env, args []string) int

// Word writes s as one word of a command a notice suggests, so the model
// can paste the command back: quoted the way the worker command line is
// (oneline.Quote), bare when nothing needs quoting; a retained script
// keeps its @shell/ prefix bare (no shell gives '@' or '/' a meaning
// there), so `@shell/call_1` stays as the model wrote it. A name no line
// can show (a line break, a control byte) is written in Bash's $'…'
// escapes, which keep the notice on one line and read back in Bash, the
// worker's default (a POSIX sh script has no way to write such a name on
// one line).
func Word(s string) string {
	if !oneline.Showable(s) {
		if q, err := bashquote.Word(s); err == nil && oneline.Showable(q) {
			return q
		}
		return strconv.Quote(s) // a NUL byte: no shell word holds one
	}
	if id, ok := strings.CutPrefix(s, scriptref.RefPrefix); ok && id != "" {
		return scriptref.RefPrefix + oneline.Quote(id)
	}
	return oneline.Quote(s)
}
