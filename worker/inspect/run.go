package inspect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"unicode/utf8"

	"hpatch-router/jsonline"
	"hpatch-router/regfile"
	"hpatch-router/rows"
	"hpatch-router/worker/privcmd"
)

// Error codes of {"ok":false,"error":{"code":…}}; stable for callers.
const (
	CodeUsage       = "usage"
	CodeNotFound    = "not_found"
	CodeNotRegular  = "not_regular"
	CodeUnreadable  = "unreadable" // it exists but cannot be opened or read (permissions, a symlink loop)
	CodeNotUTF8     = "not_utf8"
	CodeParse       = "parse"
	CodeOutputLimit = "output_limit"
	CodeInputLimit  = "input_limit"  // the file is larger than Limits.Input
	CodeDepthLimit  = "depth_limit"  // it nests deeper than Limits.Depth
	CodeTimeLimit   = "time_limit"   // outlining reached Limits.Time
	CodeMemoryLimit = "memory_limit" // the parser needed more than Limits.Memory
)

type data struct {
	Path          string  `json:"path"`
	Kind          string  `json:"kind"`
	Language      string  `json:"language"`
	SizeBytes     int     `json:"size_bytes"`
	LineCount     int     `json:"line_count"`
	ParseComplete bool    `json:"parse_complete"`
	Outline       []Entry `json:"outline"`
}

type truncation struct {
	LimitBytes   int `json:"limit_bytes"`
	EntriesShown int `json:"entries_shown"`
	EntriesTotal int `json:"entries_total"`
}

type envelope struct {
	OK         bool        `json:"ok"`
	Data       *data       `json:"data"`
	Truncated  bool        `json:"truncated"`
	Truncation *truncation `json:"truncation"`
}

type failure struct {
	OK    bool `json:"ok"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Run is the private command inspect_file; args[0] is the command name.
// env.Limits bound it: the file read (Input), the parser (Depth, Memory,
// Time: see Outline) and the envelope (Output).
func Run(ctx context.Context, env *privcmd.Env, args []string) int {
	return runWith(ctx, env, args, runChild)
}

// runWith is Run with the step that parses given (parseFunc).
func runWith(ctx context.Context, env *privcmd.Env, args []string, parse parseFunc) int {
	ctx, cancel := privcmd.WithTimeLimit(ctx, env.Limits)
	defer cancel()
	return run(ctx, env, args, parse)
}

func run(ctx context.Context, env *privcmd.Env, args []string, parse parseFunc) int {
	fail := func(code, msg string) int {
		var f failure
		f.Error.Code, f.Error.Message = code, "inspect_file: "+msg
		_, _ = env.Stdout.Write(append(marshal(f), '\n'))
		if code == CodeTimeLimit {
			return privcmd.ExitTimeLimit
		}
		return 1
	}
	if len(args) != 2 || args[1] == "" {
		return fail(CodeUsage, "usage: inspect_file PATH (one file)")
	}
	l := env.Limits
	path := args[1]
	name := path
	if !filepath.IsAbs(name) {
		name = filepath.Join(env.Dir, name)
	}
	inParts := "; read it in parts with hread " + privcmd.Word(path) + " START:END"
	src, err := privcmd.ReadFile(ctx, name, l.Input)
	var notRegular *regfile.NotRegularError
	var tooLarge *privcmd.TooLargeError
	switch {
	case privcmd.TimedOut(ctx):
		return fail(CodeTimeLimit, fmt.Sprintf("%s took longer than the %v time limit to read%s", path, l.Time, inParts))
	case errors.Is(err, fs.ErrNotExist):
		return fail(CodeNotFound, path+" does not exist; check the path (relative paths start at the shell's cwd)")
	case errors.As(err, &notRegular):
		return fail(CodeNotRegular, path+" is "+notRegular.What()+", not a regular file; name a file")
	case errors.As(err, &tooLarge):
		return fail(CodeInputLimit, fmt.Sprintf("%s is %d bytes, over inspect_file's %s input limit%s",
			path, tooLarge.Size, privcmd.Size(tooLarge.Limit), inParts))
	case err != nil:
		return fail(CodeUnreadable, privcmd.CannotRead(path, err))
	}
	if !utf8.Valid(src) {
		return fail(CodeNotUTF8, path+" is not UTF-8 text; inspect_file outlines text files only")
	}
	res, err := outlineWith(ctx, path, src, l, parse)
	var limit *LimitError
	switch {
	case errors.As(err, &limit):
		return fail(limit.Code, path+" "+limit.Reason+inParts)
	case err != nil:
		return fail(CodeParse, path+": "+err.Error())
	}
	d := &data{
		Path: path, Kind: res.Kind, Language: res.Language, SizeBytes: len(src),
		LineCount: rows.Count(src), ParseComplete: res.ParseComplete, Outline: res.Entries,
	}
	if d.Outline == nil {
		d.Outline = []Entry{}
	}
	out, truncated, ok := bounded(d, res.Dropped, l.Output)
	if !ok {
		return fail(CodeOutputLimit, "even an empty outline exceeds the output bound; use hread on "+privcmd.Word(path))
	}
	_, _ = env.Stdout.Write(out)
	if truncated {
		return privcmd.ExitTruncated
	}
	return 0
}

// bounded encodes the envelope within limit bytes, keeping the longest
// prefix of the outline that fits; truncated says entries were left out.
// ok is false when none fits.
// dropped counts entries the parser did not keep; they make the envelope
// truncated whatever its size.
func bounded(d *data, dropped, limit int) (out []byte, truncated, ok bool) {
	full := marshal(envelope{OK: true, Data: d})
	if dropped == 0 && len(full)+1 <= limit {
		return append(full, '\n'), false, true
	}
	all := d.Outline
	defer func() { d.Outline = all }()
	tr := &truncation{LimitBytes: limit, EntriesTotal: len(all) + dropped}
	// Entries are encoded once; the envelope around them is measured with
	// the largest truncation numbers it can hold.
	sizes := make([]int, len(all))
	for i, e := range all {
		sizes[i] = len(marshal(e)) + 1 // a comma or the closing bracket
	}
	d.Outline = []Entry{}
	tr.EntriesShown = len(all)
	base := len(marshal(envelope{OK: true, Data: d, Truncated: true, Truncation: tr})) + 1
	n, used := 0, base
	for n < len(all) && used+sizes[n] <= limit {
		used += sizes[n]
		n++
	}
	d.Outline = all[:n]
	tr.EntriesShown = n
	out = append(marshal(envelope{OK: true, Data: d, Truncated: true, Truncation: tr}), '\n')
	if len(out) > limit || n == 0 && len(all) > 0 && base > limit {
		return nil, false, false
	}
	return out, true, true
}

// marshal encodes v as compact JSON without HTML escaping.
func marshal(v any) []byte {
	b, err := jsonline.Marshal(v)
	if err != nil {
		return []byte(`{"ok":false,"error":{"code":"output_limit","message":"inspect_file: cannot encode the outline"}}`)
	}
	return b
}
