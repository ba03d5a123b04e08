package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"hpatch-router/worker/privcmd"
)

// ChildArg0 is argv[0] of the outline process. The binary that sees it
// (the router, or a test binary whose TestMain asks) runs ChildMain instead
// of its own main.
const ChildArg0 = "hpatch-outline"

// answerLimit bounds what the outline process prints (its entries beyond
// are counted as dropped): a few thousand entries fill any output limit.
const answerLimit = 8 << 20

// LimitError is an outline not made because a limit was reached.
type LimitError struct {
	Code   string // CodeDepthLimit, CodeTimeLimit or CodeMemoryLimit
	Reason string // what was reached, for the notice
}

func (e *LimitError) Error() string { return e.Reason }

// Outline outlines data as path's language (by extension) under l, so no
// file can make it run long, grow without end or crash its caller:
//   - a linear pre-scan refuses files nesting deeper than l.Depth;
//   - the parser runs in its own process, this executable started as
//     ChildArg0 with an empty environment, which ends itself when the Go
//     runtime holds more than l.Memory, cannot map more than that plus
//     dataHeadroom (C allocations included), and is killed at ctx's
//     deadline (the command's l.Time); a parser that crashes takes only
//     that process down.
//
// Languages without a parser give kind "text" and no entries without
// starting anything. Errors: *LimitError, ctx's error when it was
// canceled, or a parse error (code "parse").
func Outline(ctx context.Context, path string, data []byte, l privcmd.Limits) (Result, error) {
	return outlineWith(ctx, path, data, l, runChild)
}

// parseFunc outlines data as lang under l: runChild in the outline
// process; the fuzz target parses in its own process (see FuzzInspectFile).
type parseFunc func(ctx context.Context, lang string, data []byte, l privcmd.Limits) (Result, error)

// outlineWith is Outline with the step that parses given.
func outlineWith(ctx context.Context, path string, data []byte, l privcmd.Limits, parse parseFunc) (Result, error) {
	lang := Language(path)
	if parserFor(lang) == nil {
		return Result{Kind: "text", Language: lang}, nil
	}
	if depth, row := nesting(lang, data); depth > l.Depth {
		return Result{}, &LimitError{CodeDepthLimit,
			fmt.Sprintf("nests %d levels deep (row %d), over the %d-level limit", depth, row, l.Depth)}
	}
	res, err := parse(ctx, lang, data, l)
	res.Language = lang
	return res, err
}

// runChild outlines data in the outline process.
func runChild(ctx context.Context, lang string, data []byte, l privcmd.Limits) (Result, error) {
	cmd := exec.CommandContext(ctx, "/proc/self/exe", // this very executable, even if replaced on disk
		"-input="+strconv.FormatInt(l.Input, 10), "-output="+strconv.Itoa(l.Output),
		"-memory="+strconv.FormatInt(l.Memory, 10), "-time="+l.Time.String(), lang)
	cmd.Args[0] = ChildArg0
	cmd.Env = []string{} // the parser needs nothing of the script's environment
	cmd.Stdin = bytes.NewReader(data)
	out := &headBuffer{max: answerLimit + 1}
	diag := &headBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = out, diag
	cmd.WaitDelay = time.Second
	err := privcmd.Start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	switch {
	case privcmd.TimedOut(ctx):
		return Result{}, timeLimit(l)
	case ctx.Err() != nil:
		return Result{}, context.Cause(ctx)
	case err != nil:
		return Result{}, childFailure(lang, err, diag.buf.Bytes(), l)
	case out.buf.Len() > answerLimit:
		return Result{}, fmt.Errorf("the %s outline is larger than %s", lang, privcmd.Size(answerLimit))
	}
	return decodeAnswer(out.buf.Bytes())
}

// decodeAnswer reads the outline process's answer (encodeAnswer's).
func decodeAnswer(out []byte) (Result, error) {
	var a answer[wireEntry]
	if err := json.Unmarshal(out, &a); err != nil {
		return Result{}, fmt.Errorf("the outline process answered %.100q: %w", out, err)
	}
	if a.Error != "" {
		return Result{}, errors.New(a.Error)
	}
	res := Result{Kind: a.Kind, ParseComplete: a.ParseComplete, Dropped: a.Dropped}
	for _, w := range a.Entries {
		e := w.Entry
		e.Start, e.End, e.NameLine = w.Start, w.End, w.NameLine
		res.Entries = append(res.Entries, e)
	}
	return res, nil
}

// childFailure says why the outline process failed: it ran out of memory
// (its memory watch exits with exitOutOfMemory; at the data segment's cap
// the Go runtime says so before dying), out of
// stack (nesting deeper than the pre-scan saw), out of CPU time (SIGXCPU:
// its own backstop), or the parser crashed.
func childFailure(lang string, err error, diag []byte, l privcmd.Limits) error {
	memory := &LimitError{CodeMemoryLimit, fmt.Sprintf("needed more than the %s memory limit to outline", privcmd.Size(l.Memory))}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() == exitOutOfMemory {
			return memory
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGXCPU {
			return timeLimit(l)
		}
	}
	has := func(words ...string) bool {
		for _, w := range words {
			if bytes.Contains(diag, []byte(w)) {
				return true
			}
		}
		return false
	}
	switch {
	case has("out of memory", "cannot allocate memory", "failed to allocate", "malloc failed"):
		return memory
	case has("stack overflow", "stack exceeds"):
		return &LimitError{CodeDepthLimit, "nests deeper than the parser's stack"}
	}
	first, _, _ := bytes.Cut(bytes.TrimSpace(diag), []byte{'\n'})
	if len(first) == 0 {
		first = []byte(err.Error())
	}
	return fmt.Errorf("the %s parser failed (%.200s)", lang, first)
}

func timeLimit(l privcmd.Limits) *LimitError {
	return &LimitError{CodeTimeLimit, fmt.Sprintf("took longer than the %v time limit to outline", l.Time)}
}

// headBuffer keeps the first max bytes written to it and counts the rest
// as written, so a chatty process never blocks on its pipe.
type headBuffer struct {
	buf bytes.Buffer
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - h.buf.Len(); room > 0 {
		h.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
