//go:build linux

package hsymbol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"unicode/utf8"

	"hpatch-router/regfile"
	"hpatch-router/rows"
	"hpatch-router/worker/inspect"
	"hpatch-router/worker/inspect/outline"
	"hpatch-router/worker/privcmd"
)

// settings are Run's places, which tests change.
type settings struct {
	tempRoots []string // candidate parents of the server's private directory; nil: tempRoots(env)
}

// Run is the private command hsymbol; args[0] is the command name. The
// calls of one run share its language servers (Sessions). env.Limits bound
// it: Input the document read and sent to the server, Time the whole
// command (a server start included; the server is killed at the deadline),
// Output the rows; def's declarations are outlined under inspect_file's
// limits.
func (pool *Sessions) Run(ctx context.Context, env *privcmd.Env, args []string) int {
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "hsymbol: %s\n", rows.OneLineEscaped(fmt.Sprintf(format, a...)))
		return code
	}
	l := env.Limits
	ctx, cancel := privcmd.WithTimeLimit(ctx, l)
	defer cancel()
	req, err := parseArgs(args[1:])
	if err != nil {
		return fail(2, "%v", err)
	}
	file := req.path
	if !filepath.IsAbs(file) {
		file = filepath.Join(env.Dir, file)
	}
	data, err := privcmd.ReadFile(ctx, file, l.Input)
	var notRegular *regfile.NotRegularError
	var tooLarge *privcmd.TooLargeError
	switch {
	case privcmd.TimedOut(ctx):
		return fail(privcmd.ExitTimeLimit, "reading %s stopped at the %v time limit", req.path, l.Time)
	case errors.Is(err, fs.ErrNotExist):
		return fail(1, "%s does not exist; check the path (relative paths start at the shell's cwd)", req.path)
	case errors.As(err, &notRegular):
		return fail(1, "%s is %s, not a regular file; name a source file", req.path, notRegular.What())
	case errors.As(err, &tooLarge):
		return fail(1, "%s is %d bytes, over hsymbol's %s input limit (a generated file?); find the symbol with hgrep -w %s %s",
			req.path, tooLarge.Size, privcmd.Size(tooLarge.Limit), req.symbol, req.path)
	case err != nil:
		return fail(1, "%s: %v", req.path, err)
	}
	if !utf8.Valid(data) {
		return fail(1, "%s is not UTF-8 text", req.path)
	}
	line, err := verifyRow(data, req)
	if err != nil {
		return fail(1, "%v", err)
	}
	lang := inspect.Language(req.path)
	srv, ok := serverFor(lang)
	if !ok {
		return fail(2, "no language server for %s (%s); hsymbol knows Go, Python, JavaScript and TypeScript", req.path, lang)
	}
	col, err := pick(occurrences(lang, line, req.symbol), req)
	if err != nil {
		return fail(1, "%v", err)
	}
	bin, err := env.LookPath(srv.name)
	if err != nil {
		return fail(127, "%s (the %s language server) is not on PATH; install it: %s", srv.name, lang, srv.install)
	}
	for _, need := range srv.needs {
		if _, err := env.LookPath(need); err != nil {
			return fail(127, "%s needs the %s command, which is not on PATH; add the directory holding it (e.g. /usr/local/go/bin) to the PATH Codex runs commands with", srv.name, need)
		}
	}
	method := "textDocument/definition"
	if req.op == "refs" {
		method = "textDocument/references"
	}
	root := workspaceRoot(srv, file, env.Dir)
	locs, err := pool.ask(ctx, env, query{
		srv: srv, bin: bin, root: root, options: initOptions(env, srv, root),
		file: file, text: data,
		method: method, line: req.line - 1, char: utf16Column(line, col),
	})
	if privcmd.TimedOut(ctx) {
		return fail(privcmd.ExitTimeLimit, "%s did not answer within the %v time limit (a cold server indexes the workspace first); retry, or find the symbol with hgrep -w %s",
			srv.name, l.Time, req.symbol)
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	if len(locs) == 0 {
		if req.op == "def" {
			return fail(1, "%s found no definition of %s at row %d:%s", srv.name, req.symbol, req.line, req.hash)
		}
		return 0
	}
	p := printer{ctx: ctx, env: env, root: root, limits: l, files: map[string]*target{}}
	p.print(req, locs)
	return p.finish()
}

// target is one file the answer points into.
type target struct {
	lines   *outline.Lines
	outline []outline.Entry
	shown   string // the quoted display path
	err     error
}

// printer renders locations as rows within the output bound.
type printer struct {
	ctx       context.Context
	env       *privcmd.Env
	root      string
	limits    privcmd.Limits
	files     map[string]*target
	buf       []byte
	rows      int
	truncated bool
	skipped   int // rows not printed: unreadable or non-UTF-8 files
}

// load reads a file the server pointed into, within the input limit;
// expand also outlines it (for def), under the same limits as
// inspect_file: a file it cannot outline gives rows without expansion.
func (p *printer) load(path string, expand bool) *target {
	if t, ok := p.files[path]; ok {
		return t
	}
	t := &target{shown: rows.QuotePath(p.display(path))}
	data, err := privcmd.ReadFile(p.ctx, path, p.limits.Input)
	switch {
	case err != nil:
		t.err = err
	case !utf8.Valid(data):
		t.err = errors.New("not UTF-8")
	default:
		t.lines = outline.NewLines(data)
		if expand {
			if res, err := inspect.Outline(p.ctx, path, data, p.limits); err == nil {
				t.outline = res.Entries
			}
		}
	}
	p.files[path] = t
	return t
}

// display is path relative to the shell's cwd when it lies in the cwd or
// the workspace root, else absolute (e.g. the Go standard library).
func (p *printer) display(path string) string {
	if within(p.env.Dir, path) || within(p.root, path) {
		if rel, err := filepath.Rel(p.env.Dir, path); err == nil {
			return rel
		}
	}
	return path
}

// print emits def locations in the server's order, each expanded to its
// declaration, and refs sorted by path and line; one row per path and line.
func (p *printer) print(req request, locs []location) {
	if req.op == "refs" {
		sort.SliceStable(locs, func(i, j int) bool {
			if locs[i].path != locs[j].path {
				return locs[i].path < locs[j].path
			}
			return locs[i].startLine < locs[j].startLine
		})
	}
	seen := map[string]bool{}
	for _, l := range locs {
		t := p.load(l.path, req.op == "def")
		if t.err != nil {
			p.skipped++
			continue
		}
		from, to := l.startLine+1, l.startLine+1
		if req.op == "def" {
			from, to = declaration(t.outline, req.symbol, from)
		}
		for n := from; n <= to && !p.truncated; n++ {
			key := l.path + "\x00" + fmt.Sprint(n)
			r, ok := t.lines.Row(n)
			if seen[key] || !ok {
				continue
			}
			seen[key] = true
			start := len(p.buf)
			p.buf = rows.AppendRow(p.buf, t.shown, n, r.Text)
			if len(p.buf) > p.limits.Output {
				p.buf = p.buf[:start]
				p.truncated = true
			} else {
				p.rows++
			}
		}
	}
}

// declaration is the row span of the outline entry named symbol whose name
// is written on row n (so a local of the same name inside a function does
// not expand to the function); just n when the outline knows none.
func declaration(entries []outline.Entry, symbol string, n int) (int, int) {
	for _, e := range entries {
		if e.Name == symbol && e.NameLine == n {
			return e.Start, e.End
		}
	}
	return n, n
}

func (p *printer) finish() int {
	if _, err := p.env.Stdout.Write(p.buf); err != nil && !errors.Is(err, io.ErrClosedPipe) {
		fmt.Fprintf(p.env.Stderr, "hsymbol: writing rows: %v\n", err)
		return 1
	}
	if p.skipped > 0 {
		fmt.Fprintf(p.env.Stderr, "hsymbol: skipped %d location(s) in files that are unreadable, not UTF-8 or over the %s input limit\n", p.skipped, privcmd.Size(p.limits.Input))
	}
	if p.truncated {
		fmt.Fprintf(p.env.Stderr, "hsymbol: output truncated at %d bytes after %d rows (no row was cut)\n", p.limits.Output, p.rows)
		return privcmd.ExitTruncated
	}
	return 0
}
