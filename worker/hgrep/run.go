package hgrep

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"hpatch-router/worker/privcmd"
)

// MaxOutput bounds the rows hgrep prints, in bytes. The row that would
// cross it is not printed; one line on stderr says the output was cut.
const MaxOutput = 64 << 10

// maxStderr bounds what hgrep keeps of rg's own diagnostics.
const maxStderr = 4 << 10

// Run is the private command hgrep; args[0] is the command name.
func Run(ctx context.Context, env *privcmd.Env, args []string) int {
	return run(ctx, env, args, MaxOutput)
}

func run(ctx context.Context, env *privcmd.Env, args []string, limit int) int {
	p, err := classify(args[1:])
	if err != nil {
		fmt.Fprintf(env.Stderr, "hgrep: %v\n", err)
		return 2
	}
	if len(p.ignored) > 0 {
		fmt.Fprintln(env.Stderr, ignoredWarning(p.ignored))
	}
	rg, err := LookPath(env, "rg")
	if err != nil {
		fmt.Fprintln(env.Stderr, "hgrep: ripgrep (rg) is not on PATH; install ripgrep 13 or newer")
		return 127
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	argv := append([]string{"--json", "--no-config", "--line-number"}, p.rgArgs...)
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
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(env.Stderr, "hgrep: cannot start ripgrep (%s): %v\n", rg, err)
		return 127
	}
	out := &output{w: env.Stdout, limit: limit}
	c, streamErr := stream(stdout, env.Dir, p.defaultPath, out)
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
		return 0
	}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
		return 0
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
// ends, and writes rows until the output bound.
func stream(r io.Reader, dir string, stripDot bool, out *output) (counts, error) {
	var c counts
	br := bufio.NewReaderSize(r, 256<<10)
	var hits []hit
	for !out.truncated && out.err == nil {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A very long line: gather it whole.
			full := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var m rgMessage
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				return c, fmt.Errorf("ripgrep printed a line that is not its JSON format (%v); check that rg is ripgrep 13 or newer", jerr)
			}
			switch m.Type {
			case "begin":
				hits = hits[:0]
			case "match", "context":
				text, ok := m.Data.Lines.value()
				if ok && m.Data.LineNumber != nil && m.Data.AbsoluteOffset != nil {
					hits = append(hits, hit{*m.Data.LineNumber, *m.Data.AbsoluteOffset, text})
				} else {
					c.unverified++
				}
			case "end":
				path, ok := m.Data.Path.value()
				if !ok || !utf8.Valid(path) {
					if len(hits) > 0 {
						c.badPathFiles++
					}
					hits = hits[:0]
					continue
				}
				if len(hits) > 0 {
					rows := fileRows(dir, string(path), hits, m.Data.BinaryOffset, &c)
					shown := string(path)
					if stripDot {
						shown = strings.TrimPrefix(shown, "./")
					}
					out.file(QuotePath(shown), rows)
				}
				hits = hits[:0]
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, fmt.Errorf("reading ripgrep's output: %v", err)
		}
	}
	return c, nil
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

func (o *output) file(quoted string, rows []row) {
	for _, r := range rows {
		if o.truncated || o.err != nil {
			return
		}
		start := len(o.buf)
		o.buf = AppendRow(o.buf, quoted, r.num, r.text)
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
		return fmt.Errorf("writing rows: %v", o.err)
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

// LookPath finds an executable named name on env's PATH; relative PATH
// entries and names with a slash resolve against env.Dir.
func LookPath(env *privcmd.Env, name string) (string, error) {
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(env.Dir, p)
	}
	executable := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
	}
	if strings.Contains(name, "/") {
		if p := resolve(name); executable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	for _, d := range filepath.SplitList(env.Getenv("PATH")) {
		if d == "" {
			d = "."
		}
		if p := resolve(filepath.Join(d, name)); executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH", name)
}
