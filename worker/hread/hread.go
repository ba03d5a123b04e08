package hread

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"hpatch-router/regfile"
	"hpatch-router/retain"
	"hpatch-router/rows"
	"hpatch-router/scriptref"
	"hpatch-router/worker/privcmd"
)

// Run is the privcmd.Func of hread; env.Limits bound it.
func Run(ctx context.Context, env *privcmd.Env, args []string) int {
	ctx, cancel := privcmd.WithTimeLimit(ctx, env.Limits)
	defer cancel()
	return run(ctx, env, args)
}

func run(ctx context.Context, env *privcmd.Env, args []string) int {
	if len(args) < 2 || len(args) > 3 {
		return usage(env, "want PATH or @shell/<id>, then an optional START:END range")
	}
	name := args[1]
	var lo, hi int
	if len(args) == 3 {
		var err error
		if lo, hi, err = parseRange(args[2]); err != nil {
			return usage(env, err.Error())
		}
	}
	data, err := read(ctx, env, name)
	if err != nil {
		if privcmd.TimedOut(ctx) {
			return timedOut(env, name)
		}
		return fail(env, err.Error())
	}
	if !utf8.Valid(data) {
		return fail(env, name+" is not UTF-8 text; hread shows text files only")
	}
	if lo == 0 {
		lo = 1
	}
	p := printer{env: env, name: name, lo: lo, hi: hi, limit: env.Limits.Output}
	if err := p.print(ctx, data); err != nil {
		if privcmd.TimedOut(ctx) {
			return timedOut(env, name)
		}
		return fail(env, "stopped: "+err.Error())
	}
	return p.status(len(args) == 3)
}

// flushAt is how much output printer holds before writing it: rows go out
// in pieces of about this size instead of one buffer for the whole
// window, so a fresh worker touches 64 KiB of heap, not the output limit.
const flushAt = 64 << 10

// printer prints the rows from lo to hi (0: the end) of one file in a
// single pass over it, within limit bytes and never cutting a row, and
// counts all rows for the notices. Nothing is kept per row.
type printer struct {
	env        *privcmd.Env
	name       string
	lo, hi     int
	limit      int
	buf        []byte
	printed    int   // bytes of rows written or buffered
	total      int   // rows in the file
	cut        int   // the first row the limit left out; 0: none
	tooLong    int   // a first row alone over the limit; 0: none
	writeError error // stdout refused the rows
}

func (p *printer) print(ctx context.Context, data []byte) error {
	p.buf = make([]byte, 0, min(p.limit, flushAt))
	for r := range rows.All(data) {
		p.total++
		if p.total%(64<<10) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if r.Num < p.lo || p.hi != 0 && r.Num > p.hi || p.cut != 0 || p.tooLong != 0 || p.writeError != nil {
			continue
		}
		p.add(r)
	}
	p.flush()
	return nil
}

// add prints r, or records that the limit stops the window at r.
func (p *printer) add(r rows.Row) {
	size := digits(r.Num) + len(":") + rows.HashLen + len(" ") + len(r.Text) + len("\n")
	if p.printed+size > p.limit {
		if p.printed == 0 {
			p.tooLong = r.Num
		} else {
			p.cut = r.Num
		}
		return
	}
	if len(p.buf)+size > cap(p.buf) {
		p.flush() // a row longer than flushAt gets a piece of its own
	}
	p.buf = strconv.AppendInt(p.buf, int64(r.Num), 10)
	p.buf = append(p.buf, ':')
	p.buf = rows.AppendHash(p.buf, r.Text)
	p.buf = append(p.buf, ' ')
	p.buf = append(p.buf, r.Text...)
	p.buf = append(p.buf, '\n')
	p.printed += size
}

func (p *printer) flush() {
	if len(p.buf) == 0 || p.writeError != nil {
		return
	}
	_, p.writeError = p.env.Stdout.Write(p.buf)
	p.buf = p.buf[:0]
}

// status says how the print ended; ranged reports that START:END was
// given (an empty file then has no row START).
func (p *printer) status(ranged bool) int {
	switch {
	case p.writeError != nil:
		return 1
	case p.tooLong != 0:
		return fail(p.env, fmt.Sprintf("row %d alone is longer than the %d-byte output limit; read it with other tools", p.tooLong, p.limit))
	case p.total == 0 && ranged:
		return fail(p.env, p.name+" is empty; there is no row "+strconv.Itoa(p.lo))
	case p.total == 0:
		return 0
	case p.lo > p.total:
		return fail(p.env, "start "+strconv.Itoa(p.lo)+" is past the end of "+p.name+" ("+strconv.Itoa(p.total)+" rows)")
	case p.cut != 0:
		last := p.hi
		if last == 0 || last > p.total {
			last = p.total
		}
		fmt.Fprintf(p.env.Stderr, "hread: output truncated after row %d of %d (%d-byte limit); continue with: hread %s %d:%d\n",
			p.cut-1, p.total, p.limit, privcmd.Word(p.name), p.cut, last)
		return privcmd.ExitTruncated
	}
	return 0
}

// digits is the length of n in decimal.
func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

func parseRange(s string) (lo, hi int, err error) {
	bad := fmt.Errorf("bad range %q: want START:END with 1 <= START <= END, e.g. 10:40, 10: or :40", s)
	a, b, ok := strings.Cut(s, ":")
	if !ok || (a == "" && b == "") {
		return 0, 0, bad
	}
	if a != "" {
		if lo, err = strconv.Atoi(a); err != nil || lo < 1 {
			return 0, 0, bad
		}
	}
	if b != "" {
		if hi, err = strconv.Atoi(b); err != nil || hi < 1 {
			return 0, 0, bad
		}
	}
	if lo != 0 && hi != 0 && lo > hi {
		return 0, 0, bad
	}
	return lo, hi, nil
}

// read returns the content of one regular file: a workspace path relative
// to the evaluation's directory, or a retained script of the thread.
func read(ctx context.Context, env *privcmd.Env, name string) ([]byte, error) {
	if strings.HasPrefix(name, scriptref.RefPrefix) {
		return readRef(env, name)
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	data, err := privcmd.ReadFile(ctx, path, env.Limits.Input)
	var notRegular *regfile.NotRegularError
	var tooLarge *privcmd.TooLargeError
	switch {
	case err == nil:
		return data, nil
	case errors.As(err, &notRegular) && notRegular.Mode.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a regular file; list it with ls", name)
	case errors.As(err, &notRegular):
		return nil, fmt.Errorf("%s is not a regular file (%s); hread reads files only", name, notRegular.What())
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("%s is %d bytes, over hread's %s input limit; find rows with hgrep PATTERN %s, or print a part with sed -n 'START,ENDp' %s",
			name, tooLarge.Size, privcmd.Size(tooLarge.Limit), privcmd.Word(name), privcmd.Word(name))
	case errors.Is(err, regfile.ErrChanged):
		return nil, fmt.Errorf("%s was %w", name, err)
	}
	return nil, openError(name, err)
}

// readRef reads a retained script through the store's own reader
// (retain.ReadRef), so hread accepts exactly what the store would: a valid,
// non-reserved id naming a regular single-link UTF-8 file inside scripts/,
// never a symlink, never .runtime.
func readRef(env *privcmd.Env, ref string) ([]byte, error) {
	if env.Scripts == nil {
		return nil, fmt.Errorf("%s: this thread has no retained scripts", ref)
	}
	return retain.ReadRef(env.Scripts, ref)
}

func openError(name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist; check the path (relative paths start at the working directory)", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s cannot be read (permission denied); check its permissions and its directories'", name)
	}
	return errors.New(privcmd.CannotRead(name, err))
}

func usage(env *privcmd.Env, msg string) int {
	fmt.Fprintf(env.Stderr, "hread: %s; usage: hread PATH [START:END] or hread @shell/<id> [START:END]\n", msg)
	return 2
}

// timedOut is the notice for a read or scan stopped at the time limit.
func timedOut(env *privcmd.Env, name string) int {
	fmt.Fprintf(env.Stderr, "hread: stopped reading %s at the %v time limit; the file is on slow storage: copy it or read a part with sed -n 'START,ENDp' %s\n",
		name, env.Limits.Time, privcmd.Word(name))
	return privcmd.ExitTimeLimit
}

func fail(env *privcmd.Env, msg string) int {
	fmt.Fprintf(env.Stderr, "hread: %s\n", msg)
	return 1
}
