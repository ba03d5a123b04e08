package workspace

import (
	"fmt"
	"path/filepath"
	"strings"
)

// MaxFileBytes bounds a file an edit reads or writes: the router holds the
// current and the new bytes of every file of an edit in memory while the
// call streams, and a model edits files it has read by rows.
const MaxFileBytes = 8 << 20

// Env is where a turn's workspace is, as Codex declared it in the request
// the call answers: the turn's cwd and its workspace roots (absolute).
type Env struct {
	Cwd   string
	Roots []string
}

// place is a path resolved against Env: the workspace root that holds it
// and the path inside that root (slash-separated, cleaned, never `..`).
type place struct {
	root string
	rel  string
}

func (p place) key() string { return p.root + "\x00" + p.rel }

// locate resolves name, as the model wrote it, to the innermost workspace
// root that holds it. This is the lexical half of the confinement rule;
// the *os.Root opened at that root is the other half (no symlink out).
func (e Env) locate(name string) (place, error) {
	abs := name
	if !filepath.IsAbs(name) {
		if !filepath.IsAbs(e.Cwd) {
			return place{}, fmt.Errorf("%q is relative, and this turn declared no absolute cwd; give an absolute path inside a workspace root (%s)", clip(name), e.rootList())
		}
		abs = filepath.Join(e.Cwd, name)
	}
	abs = filepath.Clean(abs)
	best := ""
	for _, r := range e.Roots {
		r = filepath.Clean(r)
		if !filepath.IsAbs(r) || !within(abs, r) || len(r) <= len(best) {
			continue
		}
		best = r
	}
	switch {
	case best == "":
		return place{}, fmt.Errorf("%s is outside the workspace (roots: %s); hpatch edits files inside a workspace root only", clip(abs), e.rootList())
	case abs == best:
		return place{}, fmt.Errorf("%q is the workspace root itself, not a file", clip(name))
	}
	rel := strings.TrimPrefix(abs[len(best):], string(filepath.Separator))
	return place{best, filepath.ToSlash(rel)}, nil
}

// within reports whether the clean absolute path abs is root or lies
// under it.
func within(abs, root string) bool {
	if root == string(filepath.Separator) {
		return true
	}
	return abs == root || strings.HasPrefix(abs, root+string(filepath.Separator))
}

func (e Env) rootList() string {
	if len(e.Roots) == 0 {
		return "none"
	}
	return clip(strings.Join(e.Roots, ", "))
}

// clip shortens s for a one-line message.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
