package privcmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"hpatch-router/privname"
)

// Limits bound one private command's work on files the model names, which
// may be hostile: huge, endless, deeply nested, or not files at all. The
// worker's command table gives every command its Limits (Bounds); a command
// reads them from Env.Limits. A zero field is a bound of zero, never "no
// bound": a caller that forgets the limits gets refusals, not unbounded work.
type Limits struct {
	// Input is the most bytes a command reads from one file. Larger files
	// are refused before they are read, with a notice naming a narrower
	// command.
	Input int64
	// Output is the most bytes of rows or outline a command prints; the
	// row that would cross it is left out, never cut.
	Output int
	// Time bounds the whole command, the processes it starts included.
	// At the deadline those are killed and the command prints what it has
	// and one notice.
	Time time.Duration
	// Memory caps the data segment (RLIMIT_DATA) of the process a command
	// starts for the heavy part of its work: the outline parser of
	// inspect_file and ripgrep for hgrep. The commands' own memory is
	// bounded by construction: Input, Output and fixed buffers. 0 for
	// commands that start no such process (hread; hsymbol's language
	// servers index whole workspaces and node reserves its heap up front,
	// so they are bounded in time only).
	Memory int64
	// Depth is the deepest nesting an outline parser is given (brackets,
	// Markdown block quotes and lists); deeper files are refused after a
	// linear pre-scan, before any parser runs. 0 for commands that parse
	// nothing.
	Depth int
}

// The limits of each private command, with the reason for each value.
const (
	// HreadInput: hread numbers rows from the start of the file, so it
	// reads the file whole; 64 MiB is scanned in well under a second, and
	// hread then holds the file and one page of output, nothing per row.
	// Bigger files (logs, dumps) are for sed -n, head and tail.
	HreadInput = 64 << 20
	// HreadOutput: one page of rows the model can take in at once, about
	// 3,000 lines of code; the notice names the next START:END.
	HreadOutput = 256 << 10
	// HreadTime: reading 64 MiB from a cold disk; a stalled network or
	// FUSE file system ends the read here.
	HreadTime = 10 * time.Second

	// InspectInput: the largest real sources are a few MB (TypeScript's
	// own _tsc.js is 6.2 MB) and are outlined in under 2 s; past 8 MiB a
	// file is generated or data, and hread or hgrep read it better.
	InspectInput = 8 << 20
	// InspectOutput: the outline is a table of contents; past 64 KiB of
	// JSON it no longer saves the model reading the file.
	InspectOutput = 64 << 10
	// InspectTime: 8 MiB of real code took the slowest parser 1.3-1.7 s
	// (tree-sitter on Python and JavaScript, measured on a loaded 2-core
	// machine; go/parser and goldmark 0.2-0.5 s); the Go outliners that
	// replaced tree-sitter and goldmark take 0.06-0.25 s, and 0.2-0.7 s on
	// 8 MiB of dense nested literals (tree-sitter needed 6 s). 5 s leaves
	// room for a busier machine; what takes longer is pathological, and
	// the parser is killed.
	InspectTime = 5 * time.Second
	// InspectMemory: the outline process peaked at 115-275 MB on 8 MiB of
	// real input (go/parser 115, goldmark 150, tree-sitter 230-275 with
	// its C heap); the Go outliners now peak at 35-125 MB (170-180 MB on
	// dense nested literals). It is stopped when the Go runtime holds
	// more than this and cannot map more than this plus 512 MiB in all
	// (RLIMIT_DATA).
	InspectMemory = 512 << 20
	// InspectDepth: of 24,818 real files on this machine (Go's source and
	// module cache, Python's library, node_modules, /usr/share/doc) the
	// deepest nests 109 levels as the pre-scan counts (a Go test with
	// brackets in strings), Markdown 47, JavaScript 27. A single structure
	// 1,024 levels deep took tree-sitter 34 ms, 100,000 levels 5 minutes
	// (its cost grew with the square of the depth; the Go outliners' and
	// go/parser's grow linearly, encoding/json's too): 256 keeps twice the
	// deepest real file and the worst case in milliseconds.
	InspectDepth = 256

	// HgrepOutput: rows of matches are for reading, not for dumping a
	// tree; the notice says to narrow the pattern or the paths.
	HgrepOutput = 64 << 10
	// HgrepInput: a file whose row numbers hgrep must recount (it has a
	// lone CR before a hit) is read whole only up to this size; hits in
	// bigger ones are left out and counted.
	HgrepInput = 64 << 20
	// HgrepTime: ripgrep searches a large monorepo in a few seconds;
	// beyond 20 s the rows found so far are printed and rg is killed.
	HgrepTime = 20 * time.Second
	// HgrepMemory: ripgrep holds the longest line it meets (plus its
	// regex automata and per-thread buffers); 1 GiB is a line hundreds of
	// MiB long, far past anything a row can show.
	HgrepMemory = 1 << 30

	// HpatchWriteInput: the files of a workspace edit, as the router read
	// them (workspace.MaxFileBytes each).
	HpatchWriteInput = 8 << 20
	// HpatchWriteOutput: the report the router predicted; the edit that
	// produces it came through one exec call, so it is bounded by that.
	HpatchWriteOutput = 4 << 20
	// HpatchWriteTime: reading, writing and renaming a few files; 30 s
	// covers a slow network file system.
	HpatchWriteTime = 30 * time.Second

	// HsymbolInput: the document hsymbol verifies and sends to the server
	// (didOpen carries it whole); source files past 8 MiB are generated.
	HsymbolInput = 8 << 20
	// HsymbolOutput: definitions and references as rows, like hgrep.
	HsymbolOutput = 64 << 10
	// HsymbolTime: a cold gopls loads the module (go list) before its
	// first answer; 30 s covers a large module on a loaded machine.
	HsymbolTime = 30 * time.Second
)

// Bounds returns the limits of the named private command; a name that is
// not one gets zero limits, which refuse everything.
func Bounds(name string) Limits {
	switch name {
	case privname.Hread:
		return Limits{Input: HreadInput, Output: HreadOutput, Time: HreadTime}
	case privname.InspectFile:
		return Limits{Input: InspectInput, Output: InspectOutput, Time: InspectTime,
			Memory: InspectMemory, Depth: InspectDepth}
	case privname.Hgrep:
		return Limits{Input: HgrepInput, Output: HgrepOutput, Time: HgrepTime, Memory: HgrepMemory}
	case privname.HpatchWrite:
		// It reads and writes the files of one edit, each bounded by
		// workspace.MaxFileBytes, and prints the edit's report.
		return Limits{Input: HpatchWriteInput, Output: HpatchWriteOutput, Time: HpatchWriteTime}
	case privname.Hsymbol:
		// Its def rows are expanded through inspect_file's outline, which
		// runs under inspect_file's memory and depth limits.
		return Limits{Input: HsymbolInput, Output: HsymbolOutput, Time: HsymbolTime,
			Memory: InspectMemory, Depth: InspectDepth}
	}
	return Limits{}
}

// ErrTimeLimit is the cause of a command context that reached Limits.Time.
var ErrTimeLimit = errors.New("time limit")

// WithTimeLimit returns ctx bounded by l.Time, its cause ErrTimeLimit.
func WithTimeLimit(ctx context.Context, l Limits) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, l.Time, ErrTimeLimit)
}

// TimedOut reports whether ctx ended at its time limit (not canceled by a
// signal or the end of the run).
func TimedOut(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrTimeLimit)
}

// Size renders a byte count for notices: "64 MiB", "256 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
