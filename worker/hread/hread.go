// Package hread is the private command `hread`: the rows of one UTF-8
// regular file as `LINE:HASH TEXT` (retain.Rows, retain.Hash), optionally a
// START:END range, from a workspace path or a retained script
// `@shell/<id>` of the thread. It runs in-process inside the worker's
// shell evaluation.
//
//	hread PATH [START:END]
//	hread @shell/<id> [START:END]
//
// START:END is 1-based and inclusive; START: runs to the end, :END starts
// at row 1. Output is bounded (OutputLimit bytes) and a row is never cut.
// Stdout carries rows only, so `hread f > copy` and `hread f | …` get data
// and nothing else; notices and diagnostics go to stderr.
//
// Exit status: 0 when every requested row was printed; 1 when the file
// cannot be read as rows (including a single row longer than the limit);
// 2 for usage errors; Truncated (3) when the limit cut the output after a
// complete row — stderr then says where to continue. A distinct status,
// not 0, because a cut read is not the file: `hread f > copy && use copy`
// and `set -e` scripts must not carry on as if it were.
package hread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"hpatch-router/retain"
	"hpatch-router/shebang"
	"hpatch-router/worker/privcmd"
)

// OutputLimit bounds the rows one hread prints (256 KiB).
const OutputLimit = 256 << 10

// Truncated is the exit status of a read the output limit cut short: the
// rows printed are complete, the rest is missing.
const Truncated = 3

// MaxFileSize bounds the file hread reads (64 MiB).
const MaxFileSize = 64 << 20

// Run is the privcmd.Func of hread.
func Run(ctx context.Context, env *privcmd.Env, args []string) int {
	return run(ctx, env, args, OutputLimit)
}

func run(_ context.Context, env *privcmd.Env, args []string, limit int) int {
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
	data, err := read(env, name)
	if err != nil {
		return fail(env, err.Error())
	}
	if !utf8.Valid(data) {
		return fail(env, name+" is not UTF-8 text; hread shows text files only")
	}
	rows := retain.Rows(data)
	if lo == 0 {
		lo = 1
	}
	if hi == 0 || hi > len(rows) {
		hi = len(rows)
	}
	if len(rows) == 0 {
		if len(args) == 3 {
			return fail(env, name+" is empty; there is no row "+strconv.Itoa(lo))
		}
		return 0
	}
	if lo > len(rows) {
		return fail(env, "start "+strconv.Itoa(lo)+" is past the end of "+name+" ("+strconv.Itoa(len(rows))+" rows)")
	}
	return write(env, name, rows[lo-1:hi], len(rows), limit)
}

// write prints rows within limit bytes, never cutting one.
func write(env *privcmd.Env, name string, rows []retain.Row, total, limit int) int {
	buf := make([]byte, 0, min(limit, 64<<10))
	for i, row := range rows {
		start := len(buf)
		buf = strconv.AppendInt(buf, int64(row.Num), 10)
		buf = append(buf, ':')
		buf = append(buf, retain.Hash(row.Text)...)
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
			row.Num-1, total, limit, name, row.Num, rows[len(rows)-1].Num)
		return Truncated
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
func read(env *privcmd.Env, name string) ([]byte, error) {
	if strings.HasPrefix(name, shebang.RefPrefix) {
		return readRef(env, name)
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a FIFO must not block
	if err != nil {
		return nil, openError(name, err)
	}
	defer f.Close()
	return readRegular(name, f)
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

func readRegular(name string, f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	switch {
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a regular file; list it with ls", name)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s)", name, fi.Mode().Type())
	case fi.Size() > MaxFileSize:
		return nil, fmt.Errorf("%s is %d bytes, over hread's %d-byte limit; read parts with other tools", name, fi.Size(), MaxFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return data, nil
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

func fail(env *privcmd.Env, msg string) int {
	fmt.Fprintf(env.Stderr, "hread: %s\n", msg)
	return 1
}
