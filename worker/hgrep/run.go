package hgrep

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"hpatch-router/rows"
	"hpatch-router/worker/privcmd"
)

// maxStderr bounds what hgrep keeps of rg's own diagnostics.
const maxStderr = 4 << 10

// Run is the private command hgrep; args[0] is the command name. env.Limits
// bound it: Output the rows printed, Time the whole search (rg is killed
// at the deadline), Memory rg's data segment, Input the files read whole
// to renumber rows.
func Run(ctx context.Context, env *privcmd.Env, args []string) int {
	ctx, cancel := privcmd.WithTimeLimit(ctx, env.Limits)
	defer cancel()
	return run(ctx, env, args)
}

func run(ctx context.Context, env *privcmd.Env, args []string) int {
	limit := env.Limits.Output
	p, err := classify(args[1:])
	if err == nil {
		err = searchable(env.Dir, p.named)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "hgrep: %v\n", err)
		return 2
	}
	if len(p.ignored) > 0 {
		fmt.Fprintln(env.Stderr, ignoredWarning(p.ignored))
	}
	rg, err := env.LookPath("rg")
	if err != nil {
		fmt.Fprintln(env.Stderr, "hgrep: ripgrep (rg) is not on PATH; install ripgrep 13 or newer")
		return 127
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// --no-mmap: rg reads files into its heap, which limitData caps; a
	// mapped file (a 1 TiB sparse one: 5 GB resident in 10 s) would not
	// count. A model that asks for --mmap gets it. --encoding=none: rg
	// searches the file's bytes; by default it strips a UTF-8 byte order
	// mark, and every line after it would sit 3 bytes off the file's.
	argv := append([]string{"--json", "--no-config", "--line-number", "--no-mmap", "--encoding=none"}, p.rgArgs...)
	cmd := exec.CommandContext(ctx, rg, argv...)
	cmd.Dir = env.Dir
	cmd.Env = env.Environ
	cmd.Stdin = nil // never searched: hgrep always names paths
	stderr := &capped{max: maxStderr}
	cmd.Stderr = stderr
	cmd.WaitDelay = 2 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintf(env.Stderr, "hgrep: cannot start ripgrep: %v\n", err)
		return 1
	}
	if err := privcmd.Start(cmd); err != nil {
		fmt.Fprintf(env.Stderr, "hgrep: cannot start ripgrep (%s): %v\n", rg, err)
		return 127
	}
	// rg has not read a file yet when its data segment is capped: startup
	// allocations are far below any limit worth setting.
	if err := limitData(cmd.Process.Pid, env.Limits.Memory); err != nil {
		cancel()
		_ = cmd.Wait()
		fmt.Fprintf(env.Stderr, "hgrep: cannot limit ripgrep's memory: %v\n", err)
		return 1
	}
	out := &output{w: env.Stdout, limit: limit}
	c, streamErr := stream(stdout, env.Dir, p.defaultPath, out, env.Limits)
	if out.truncated || streamErr != nil || out.err != nil {
		cancel() // rg's remaining output is not wanted
	}
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	if ferr := out.flush(); ferr != nil && streamErr == nil {
		if closedPipe(out.err) {
			return 141 // the reader went away (e.g. `hgrep … | head`): stop quietly, like SIGPIPE
		}
		streamErr = ferr
	}
	reportSkipped(env.Stderr, c)
	if out.truncated {
		fmt.Fprintf(env.Stderr, "hgrep: output truncated at %d bytes after %d rows (no row was cut); narrow the pattern or the paths\n",
			limit, out.rows)
	}
	if streamErr != nil {
		fmt.Fprintf(env.Stderr, "hgrep: %v\n", streamErr)
		return 1
	}
	if out.truncated {
		return privcmd.ExitTruncated
	}
	var exitErr *exec.ExitError
	switch {
	case privcmd.TimedOut(ctx):
		fmt.Fprintf(env.Stderr, "hgrep: stopped at the %v time limit after %d rows; narrow the pattern or the paths\n", env.Limits.Time, out.rows)
		return privcmd.ExitTimeLimit
	case waitErr == nil:
		return 0
	case ranOutOfMemory(stderr.buf.Bytes()):
		fmt.Fprintf(env.Stderr, "hgrep: ripgrep ran out of its %s memory limit after %d rows (a huge line?); narrow the paths or add --max-filesize\n",
			privcmd.Size(env.Limits.Memory), out.rows)
		return 1
	case ctx.Err() != nil:
		fmt.Fprintln(env.Stderr, "hgrep: canceled before ripgrep finished")
		return 130
	case errors.As(waitErr, &exitErr) && exitErr.ExitCode() == 1:
		return 0 // no match is success with no rows
	case errors.As(waitErr, &exitErr) && exitErr.ExitCode() > 0:
		relay(env.Stderr, stderr.buf.Bytes())
		return exitErr.ExitCode()
	default:
		fmt.Fprintf(env.Stderr, "hgrep: ripgrep failed: %v\n", waitErr)
		return 2
	}
}

// stream reads rg's JSON Lines, verifies each file's lines when the file
// ends, and writes rows until the output bound. A file's hits are kept
// only while they could still be printed: past l.Output bytes of hit text
// they are printed at once and the output is truncated. Messages longer
// than any printable row's are skipped unread (maxMessage).
func stream(r io.Reader, dir string, stripDot bool, out *output, l privcmd.Limits) (counts, error) {
	var c counts
	br := bufio.NewReaderSize(r, 256<<10)
	var hits []hit
	held := 0 // bytes of hit text in hits
	var path []byte
	flush := func(binaryOffset *int) {
		if len(hits) > 0 {
			verified := fileRows(dir, string(path), hits, binaryOffset, &c, l.Input)
			shown := string(path)
			if stripDot {
				shown = strings.TrimPrefix(shown, "./")
			}
			out.file(rows.QuotePath(shown), verified)
		}
		hits, held = hits[:0], 0
	}
	for !out.truncated && out.err == nil {
		line, err := readMessage(br, maxMessage(l.Output))
		if errors.Is(err, errTooLong) {
			c.tooLong++
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var m rgMessage
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				return c, fmt.Errorf("ripgrep printed a line that is not its JSON format (%w); check that rg is ripgrep 13 or newer", jerr)
			}
			switch m.Type {
			case "begin":
				hits, held, path = hits[:0], 0, nil
				if p, ok := m.Data.Path.value(); ok && utf8.Valid(p) {
					path = p
				}
			case "match", "context":
				text, ok := m.Data.Lines.value()
				if ok && m.Data.LineNumber != nil && m.Data.AbsoluteOffset != nil {
					hits = append(hits, hit{*m.Data.LineNumber, *m.Data.AbsoluteOffset, text})
					held += len(text)
				} else {
					c.unverified++
				}
				if held > l.Output && path != nil {
					flush(nil) // the rest of this file cannot be printed anyway
					out.truncated = true
				}
			case "end":
				if path == nil {
					if len(hits) > 0 {
						c.badPathFiles++
					}
					hits, held = hits[:0], 0
					continue
				}
				flush(m.Data.BinaryOffset)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, fmt.Errorf("reading ripgrep's output: %w", err)
		}
	}
	if path != nil && !out.truncated && out.err == nil {
		flush(nil) // rg was stopped inside a file: its hits so far
	}
	return c, nil
}

// maxMessage bounds one rg message for an output limit: a row that can be
// printed has at most limit bytes of text, which rg's JSON escapes to at
// most 6 times as many and reports again in at most one submatch object
// (about 50 bytes) per byte; the path adds at most 64 KiB.
func maxMessage(limit int) int { return 64*limit + 64<<10 }

// errTooLong is a message longer than the bound, skipped to its end.
var errTooLong = errors.New("message too long")

// readMessage reads one line of at most max bytes; a longer one is read
// to its end without being kept and gives errTooLong.
func readMessage(br *bufio.Reader, max int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	full := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = br.ReadSlice('\n')
		if len(full)+len(line) > max {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, errTooLong
		}
		full = append(full, line...)
	}
	return full, err
}

// output writes rows to the command's stdout within the byte bound.
type output struct {
	w         io.Writer
	limit     int
	written   int
	rows      int
	truncated bool
	buf       []byte
	err       error
}

func (o *output) file(quoted string, verified []row) {
	for _, r := range verified {
		if o.truncated || o.err != nil {
			return
		}
		start := len(o.buf)
		o.buf = rows.AppendRow(o.buf, quoted, r.num, r.text)
		if o.written+len(o.buf) > o.limit {
			o.buf = o.buf[:start]
			o.truncated = true
			return
		}
		o.rows++
		if len(o.buf) >= 32<<10 {
			o.drain()
		}
	}
}

func (o *output) drain() {
	if o.err == nil && len(o.buf) > 0 {
		_, o.err = o.w.Write(o.buf)
	}
	o.written += len(o.buf)
	o.buf = o.buf[:0]
}

func (o *output) flush() error {
	o.drain()
	if o.err != nil {
		return fmt.Errorf("writing rows: %w", o.err)
	}
	return nil
}

// closedPipe reports whether err means the reader of stdout has gone.
func closedPipe(err error) bool {
	return errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE)
}

// reportSkipped prints one warning line for lines and files left out.
func reportSkipped(w io.Writer, c counts) {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(c.notUTF8, "line(s) not valid UTF-8")
	add(c.binary, "line(s) in binary data")
	add(c.unverified, "line(s) that no longer match the file")
	add(c.badPathFiles, "file(s) whose names are not UTF-8")
	add(c.unreadable, "file(s) that could not be read back")
	add(c.tooLong, "line(s) too long to print")
	if len(parts) > 0 {
		fmt.Fprintf(w, "hgrep: skipped %s: they cannot be cited as rows\n", strings.Join(parts, ", "))
	}
}

// relay prints rg's diagnostics, one line each, prefixed with hgrep's
// name: a line starting "rg: " starts a diagnostic, indented continuation
// lines (a regex error's pattern and caret) are joined onto it.
func relay(w io.Writer, msg []byte) {
	var diags []string
	for _, l := range strings.Split(string(msg), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if strings.HasPrefix(l, "rg: ") || len(diags) == 0 {
			diags = append(diags, strings.TrimPrefix(l, "rg: "))
			continue
		}
		diags[len(diags)-1] += " " + strings.TrimSpace(l)
	}
	for _, d := range diags {
		fmt.Fprintf(w, "hgrep: %s\n", d)
	}
}

// capped keeps the first max bytes written to it.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
		} else {
			c.buf.Write(p)
		}
	}
	return len(p), nil
}
