package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"syscall"

	"hpatch-router/hpatch"
)

// fileMeta is what a rewrite keeps of a file (owner, group, mode bits)
// and which file it is: id is "device:inode" ("" where the system has no
// such numbers), links its hard-link count.
type fileMeta struct {
	id       string
	links    uint64
	uid, gid int
	mode     fs.FileMode
}

// keptMode is the part of a file's mode a rewrite keeps: the permission
// bits and setuid, setgid and sticky.
const keptMode = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// view is one name as an edit sees it: absent, or a file with its bytes.
// Where earlier calls of the same response will write, their bytes are
// the view (Pending); otherwise the disk's.
type view struct {
	exists bool
	data   []byte
	meta   fileMeta // from the disk; zero for a file only an earlier call creates
	entry  string   // the directory entry (entryKey)
	// pending: an earlier call of the response decides this name (it
	// creates, rewrites, moves or removes it), not the disk.
	pending bool
}

// ident is the identity sections are grouped by: the file (device and
// inode) when the name holds one on disk, else the directory entry, so
// two names of one file, or two paths of one entry, are one key.
func (v view) ident() string {
	if v.exists && v.meta.id != "" {
		return "f" + v.meta.id
	}
	return "e" + v.entry
}

// source reads names for one resolution: the disk through the roots, each
// name once, overlaid with the writes of the first upto calls of pending.
type source struct {
	rs      roots
	pending *Pending
	upto    int
	disk    map[string]diskView // by place key
}

type diskView struct {
	v   view
	err error
}

func newSource(p *Pending) *source {
	s := &source{rs: roots{}, pending: p, disk: map[string]diskView{}}
	if p != nil {
		s.upto = len(p.calls)
	}
	return s
}

// read returns the view of at: an error only when the name cannot be
// read (a symlink, a directory, not UTF-8, out of the root, …); a name
// that does not exist is a view that does not exist.
func (s *source) read(ctx context.Context, at place) (view, error) {
	d, ok := s.disk[at.key()]
	if !ok {
		d.v, d.err = s.readDisk(ctx, at)
		s.disk[at.key()] = d
	}
	if d.err != nil {
		return d.v, d.err
	}
	return s.overlay(d.v), nil
}

// name reads at for a section or an `mv` destination. For a name the edit
// creates (create), anything there but a regular file (a directory, a
// symlink, a file it cannot read) exists all the same; only a path out of
// the root stays an error.
func (s *source) name(ctx context.Context, at place, create bool) (view, error) {
	v, err := s.read(ctx, at)
	if err != nil && create && !errors.Is(err, errOutside) {
		return view{exists: true, entry: v.entry}, nil
	}
	return v, err
}

func (s *source) readDisk(ctx context.Context, at place) (view, error) {
	r, err := s.rs.open(at.root)
	if err != nil {
		return view{}, err
	}
	v := view{entry: entryKey(r, at)}
	st, err := readRegular(ctx, r, at.rel)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return v, nil
	case err != nil:
		return v, err
	}
	v.exists, v.data, v.meta = true, st.data, st.meta
	return v, nil
}

// overlay is v as the first s.upto pending calls leave it: the latest
// call that writes its entry, else the latest that rewrites its file.
func (s *source) overlay(v view) view {
	if s.pending == nil {
		return v
	}
	calls := s.pending.calls[:s.upto]
	for i := len(calls) - 1; i >= 0; i-- {
		if w, ok := calls[i].entries[v.entry]; ok {
			w.entry, w.pending = v.entry, true
			if w.exists && v.exists && w.meta.id == "" {
				w.meta = v.meta
			}
			return w
		}
	}
	if !v.exists || v.meta.id == "" {
		return v
	}
	for i := len(calls) - 1; i >= 0; i-- {
		if data, ok := calls[i].files[v.meta.id]; ok {
			v.data = data
			return v
		}
	}
	return v
}

// entryKey names the directory entry at: its parent directory (device
// and inode, through any symlink inside the root) and its base name, so
// `link/a` and `dir/a` are one entry when link points to dir. A parent
// that does not exist yet is named by its path.
func entryKey(r *os.Root, at place) string {
	dir := path.Dir(at.rel)
	if fi, err := r.Stat(dir); err == nil && fi.IsDir() {
		if id := metaOf(fi).id; id != "" {
			return id + "/" + path.Base(at.rel)
		}
	}
	return at.key()
}

// Pending is what the workspace hpatch calls already resolved in one
// response will write, in order. Codex runs the calls of a response in
// order, so a later call is resolved against the files as the earlier
// ones leave them, not as the disk holds them while the response streams.
// It belongs to one response; it is not safe for concurrent use.
type Pending struct {
	calls []pendingCall
}

// pendingCall is one resolved call's writes: the entries it sets (a
// removed or moved-away name as absent) and the files it rewrites, by id.
type pendingCall struct {
	id      string
	entries map[string]view
	files   map[string][]byte
}

// Prior is an earlier call of the response that this plan's baseline
// includes: State is the digest of the plan's names before that call
// wrote (StateDigest), so a write that finds them in that state can say
// the earlier call did not write.
type Prior struct {
	Call  string
	State string
}

// Resolve resolves p against the files as the earlier calls of the
// response (Add) will leave them, and lists in the plan's After each
// earlier call that changes what p names.
func (pd *Pending) Resolve(ctx context.Context, env Env, p *hpatch.Patch) (*Plan, error) {
	src := newSource(pd)
	defer src.rs.close()
	plan, err := resolveWith(ctx, src, env, p)
	if err != nil {
		return nil, err
	}
	for k := range pd.calls {
		src.upto = k
		before := stateDigest(ctx, src, env, p)
		src.upto = k + 1
		if stateDigest(ctx, src, env, p) != before {
			plan.After = append(plan.After, Prior{Call: pd.calls[k].id, State: before})
		}
	}
	return plan, nil
}

// Add records what plan, the plan of call id, will write, for the calls
// resolved after it.
func (pd *Pending) Add(id string, plan *Plan) {
	c := pendingCall{id: id, entries: map[string]view{}, files: map[string][]byte{}}
	for _, f := range plan.Files {
		switch {
		case f.Action == Create:
			c.entries[f.entry] = view{exists: true, data: f.New}
		case f.Action == Remove:
			c.entries[f.entry] = view{}
		case f.Dest != "":
			c.entries[f.entry] = view{}
			c.entries[f.destEntry] = view{exists: true, data: f.New, meta: f.meta}
			if f.meta.id != "" && f.meta.links > 1 {
				c.files[f.meta.id] = f.New
			}
		default:
			c.entries[f.entry] = view{exists: true, data: f.New, meta: f.meta}
			if f.meta.id != "" {
				c.files[f.meta.id] = f.New
			}
		}
	}
	pd.calls = append(pd.calls, c)
}

// StateDigest is the digest of every name p names, as the disk holds
// them now: each one absent, unreadable, or its bytes. Prior.State is the
// same digest computed by the router for the state before an earlier call.
func StateDigest(ctx context.Context, env Env, p *hpatch.Patch) string {
	src := newSource(nil)
	defer src.rs.close()
	return stateDigest(ctx, src, env, p)
}

func stateDigest(ctx context.Context, src *source, env Env, p *hpatch.Patch) string {
	h := sha256.New()
	seen := map[string]bool{}
	name := func(n string) {
		at, err := env.locate(n)
		if err != nil || seen[at.key()] {
			return
		}
		seen[at.key()] = true
		v, err := src.read(ctx, at)
		switch {
		case err != nil:
			fmt.Fprintf(h, "%s\x00error\x00", at.key())
		case !v.exists:
			fmt.Fprintf(h, "%s\x00absent\x00", at.key())
		default:
			fmt.Fprintf(h, "%s\x00%s\x00", at.key(), strconv.Itoa(len(v.data)))
			h.Write(v.data)
		}
	}
	for _, s := range p.Sections {
		name(s.Path)
		if s.Dest != "" {
			name(s.Dest)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:16])
}
