package hread

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"hpatch-router/retain"
	"hpatch-router/shebang"
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
	limit := env.Limits.Output
	rows, total, err := window(ctx, data, lo, hi, limit)
	if err != nil {
		if privcmd.TimedOut(ctx) {
			return timedOut(env, name)
		}
		return fail(env, "stopped: "+err.Error())
	}
	if hi == 0 || hi > total {
		hi = total
	}
	if total == 0 {
		if len(args) == 3 {
			return fail(env, name+" is empty; there is no row "+strconv.Itoa(lo))
		}
		return 0
	}
	if lo > total {
		return fail(env, "start "+strconv.Itoa(lo)+" is past the end of "+name+" ("+strconv.Itoa(total)+" rows)")
	}
	return write(env, name, rows, total, hi, limit)
}

// window counts data's rows and returns those from lo to hi (0: the end)
// that write may print: the rows within limit bytes and the one that
// crosses it. Nothing is kept per row outside the window.
func window(ctx context.Context, data []byte, lo, hi, limit int) ([]retain.Row, int, error) {
	// One allocation: at most one row per terminator, and a printed row
	// takes at least 8 bytes ("1:abcd \n").
	n := bytes.Count(data, []byte{'\n'}) + bytes.Count(data, []byte{'\r'}) + 1
	rows := make([]retain.Row, 0, min(n, limit/8+2))
	total, size := 0, 0
	for r := range retain.AllRows(data) {
		total++
		if total%(64<<10) == 0 && ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		if r.Num < lo || hi != 0 && r.Num > hi || size > limit {
			continue
		}
		rows = append(rows, r)
		// The bytes write prints for r: LINE ":" HASH " " TEXT "\n".
		size += digits(r.Num) + 7 + len(r.Text)
	}
	return rows, total, nil
}

// digits is the length of n in decimal.
func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// write prints rows within limit bytes, never cutting one; last is the
// range's last row, where a continuation ends.
func write(env *privcmd.Env, name string, rows []retain.Row, total, last, limit int) int {
	buf := make([]byte, 0, min(limit, 64<<10))
	for i, row := range rows {
		start := len(buf)
		buf = strconv.AppendInt(buf, int64(row.Num), 10)
		buf = append(buf, ':')
		buf = retain.AppendHash(buf, row.Text)
		buf = append(buf, ' ')
		buf = append(buf, row.Text...)
		buf = append(buf, '\n')
		if len(buf) <= limit {
			continue
		}
		if i == 0 {
			return fail(env, fmt.Sprintf("row %d alone is longer than the %d-byte output limit; read it with other tools", row.Num, limit))
		}
		if _, err := env.Stdout.Write(buf[:start]); err != nil {
			return 1
		}
		fmt.Fprintf(env.Stderr, "hread: output truncated after row %d of %d (%d-byte limit); continue with: hread %s %d:%d\n",
			row.Num-1, total, limit, privcmd.Word(name), row.Num, last)
		return privcmd.ExitTruncated
	}
	if _, err := env.Stdout.Write(buf); err != nil {
		return 1
	}
	return 0
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
	if strings.HasPrefix(name, shebang.RefPrefix) {
		return readRef(env, name)
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	data, err := privcmd.ReadFile(ctx, path, env.Limits.Input)
	var notRegular *privcmd.NotRegularError
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
	case errors.Is(err, privcmd.ErrChanged):
		return nil, fmt.Errorf("%s was %v", name, err)
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
		return fmt.Errorf("%s does not exist", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", name)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", name, pe.Err)
	}
	return fmt.Errorf("%s: %v", name, err)
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
