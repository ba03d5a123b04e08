package registry

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"hpatch-router/rows"
)

// Bounds on what a tools directory can make the router hold.
const (
	MaxFileBytes       = 1 << 20  // one tool file
	MaxDefinitionBytes = 64 << 10 // one grammar
	MaxTools           = 64       // the whole set
)

// LoadOptions are what Load needs from its caller.
type LoadOptions struct {
	// Owned applies the ownership rule to the directory (kind
	// "directory") and to every file read (kind "file"), without
	// following a link; its error is one line with the fix. Nil checks
	// nothing (tests of the format only).
	Owned func(what, path, kind string) error
}

// Load reads and validates every direct *.toml file of dir, in lexical
// order. A missing dir is an empty set. With problems the set is nil: a
// caller keeps what it had.
func Load(dir string, opts LoadOptions) (*Set, []Problem) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &Set{Dir: dir, byName: map[string]*Tool{}}, nil
	}
	if err != nil {
		return nil, []Problem{{File: dir, Msg: rows.OneLineSpaced(err.Error()) + "; make it a directory you can read, or point --tools-dir elsewhere"}}
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".toml") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return loadFiles(dir, names, opts)
}

// Check validates path, a tools directory or one tool file, as Load would
// (a file alone: its names are not compared with its siblings').
func Check(path string, opts LoadOptions) (*Set, []Problem) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, []Problem{{File: path, Msg: rows.OneLineSpaced(err.Error()) + "; name a tools directory or a .toml file"}}
	}
	if fi.IsDir() {
		return Load(path, opts)
	}
	return loadFiles(filepath.Dir(path), []string{filepath.Base(path)}, opts)
}

// loadFiles loads the named files of dir as one set.
func loadFiles(dir string, names []string, opts LoadOptions) (*Set, []Problem) {
	set := &Set{Dir: dir, byName: map[string]*Tool{}}
	if opts.Owned != nil {
		if err := opts.Owned("tools directory", dir, "directory"); err != nil {
			return nil, []Problem{{File: dir, Msg: rows.OneLineSpaced(err.Error())}}
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, []Problem{{File: dir, Msg: rows.OneLineSpaced(err.Error()) + "; make it a directory you can read"}}
	}
	defer root.Close()
	var probs []Problem
	for _, name := range names {
		f := &fileLoad{root: root, dir: dir, name: name, path: filepath.Join(dir, name), opts: opts}
		for _, t := range f.load() {
			if prev := set.byName[t.Name]; prev != nil {
				f.problem(t.Line, "tool name %q is already declared at %s:%d; rename one", t.Name, prev.File, prev.Line)
				continue
			}
			set.byName[t.Name] = t
			set.Tools = append(set.Tools, t)
		}
		slices.SortStableFunc(f.probs, func(a, b Problem) int { return a.Line - b.Line })
		probs = append(probs, f.probs...)
	}
	if len(set.Tools) > MaxTools {
		probs = append(probs, Problem{File: dir, Msg: fmt.Sprintf("the directory declares %d tools, over the limit of %d; remove some", len(set.Tools), MaxTools)})
	}
	if len(probs) > 0 {
		return nil, probs
	}
	for _, t := range set.Tools {
		set.inject = append(append(set.inject, ','), t.JSON...)
	}
	return set, nil
}

// fileLoad is the loading of one tool file.
type fileLoad struct {
	root            *os.Root
	dir, name, path string
	opts            LoadOptions
	lines           keyLines
	probs           []Problem
}

func (f *fileLoad) problem(line int, format string, args ...any) {
	f.probs = append(f.probs, Problem{File: f.path, Line: line, Msg: rows.OneLineSpaced(fmt.Sprintf(format, args...))})
}

// read reads name from the directory, checked and bounded.
func (f *fileLoad) read(name, what string, limit int64) ([]byte, error) {
	if f.opts.Owned != nil {
		if err := f.opts.Owned(what, filepath.Join(f.dir, name), "file"); err != nil {
			return nil, err
		}
	}
	file, err := f.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is over %d bytes; make it smaller", what, limit)
	}
	return data, err
}

// load parses and validates the file's tools; problems go to f.probs.
func (f *fileLoad) load() []*Tool {
	data, err := f.read(f.name, "tool file", MaxFileBytes)
	if err != nil {
		f.problem(0, "%s", err)
		return nil
	}
	return f.parse(data)
}

// parse validates the tools of a tool file's contents.
func (f *fileLoad) parse(data []byte) []*Tool {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		line := 0
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ = de.Position()
		}
		f.problem(line, "%s; fix the TOML syntax", strings.TrimPrefix(err.Error(), "toml: "))
		return nil
	}
	f.lines = scanLines(data)
	var out []*Tool
	for _, key := range sortedKeys(doc) {
		if key != "tool" {
			f.problem(f.lines.lineOf(key), "unknown key %q; a tool file holds only [[tool]] tables", key)
		}
	}
	raw, ok := doc["tool"]
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		f.problem(f.lines.lineOf("tool"), "tool must be an array of tables; write each tool as [[tool]]")
		return nil
	}
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			f.problem(f.lines.lineOf("tool"), "tool[%d] is not a table; write each tool as [[tool]]", i)
			continue
		}
		if t := f.tool(i, m); t != nil {
			out = append(out, t)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
