//go:build linux

package hsymbol

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"hpatch-router/worker/privcmd"
)

// A language server, and the tools it starts, write a cache and temporary
// files: gopls keeps its index in os.UserCacheDir()/gopls and runs `go
// list`, which needs a work directory in the temp dir and a build cache
// (GOCACHE, by default in the user cache dir); typescript-language-server
// makes its cancellation pipes in the temp dir. In Codex's default
// read-only sandbox none of $HOME, /tmp or $TMPDIR is writable (a private
// /dev/shm is), and in workspace-write $HOME is not, so a server started
// with the shell's environment fails on a machine where it never ran.

// serverDirs is the environment one server run gets: TMPDIR is always a
// private directory (what the server leaves there goes with it), and the
// cache moves into it too when the usual one is not writable. A writable
// usual cache is kept, so the next run starts warm.
type serverDirs struct {
	environ []string
	private string // removed by remove
}

// defaultTempRoots are where the private directory may go after the
// shell's TMPDIR, in order.
func defaultTempRoots() []string { return []string{"/tmp", "/dev/shm"} }

// tempRoots are the candidate parents of the private directory: the
// shell's TMPDIR when it is absolute, then defaultTempRoots.
func tempRoots(env *privcmd.Env) []string {
	roots := defaultTempRoots()
	if t := env.Getenv("TMPDIR"); filepath.IsAbs(t) {
		roots = append([]string{t}, roots...)
	}
	return roots
}

// newServerDirs prepares the directories of one run of srv for a shell
// whose environment is env; roots are the candidate parents of the private
// directory, first writable wins.
func newServerDirs(env *privcmd.Env, srv server, roots []string) (*serverDirs, error) {
	private := ""
	for _, r := range roots {
		if d, err := os.MkdirTemp(r, "hsymbol-"); err == nil {
			private = d
			break
		}
	}
	if private == "" {
		return nil, fmt.Errorf("no writable directory for %s's cache and temporary files (tried %s); set TMPDIR to a writable directory",
			srv.name, strings.Join(roots, ", "))
	}
	d := &serverDirs{private: private}
	set := map[string]string{"TMPDIR": filepath.Join(private, "tmp")}
	cache, ok := userCacheDir(env)
	if !ok || !writable(cache) {
		cache = filepath.Join(private, "cache")
		set["XDG_CACHE_HOME"] = cache
	}
	// An explicit GOCACHE the server's `go` cannot write moves with the cache.
	if g := env.Getenv("GOCACHE"); g != "" && g != "off" && !writable(g) {
		set["GOCACHE"] = filepath.Join(cache, "go-build")
	}
	for _, dir := range set {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			d.remove()
			return nil, fmt.Errorf("cannot prepare %s for %s: %w", dir, srv.name, err)
		}
	}
	d.environ = withVars(env.Environ, set)
	return d, nil
}

// remove deletes the private directory and everything the server left in
// it.
func (d *serverDirs) remove() { _ = os.RemoveAll(d.private) }

// userCacheDir is os.UserCacheDir for env: $XDG_CACHE_HOME when absolute,
// else $HOME/.cache.
func userCacheDir(env *privcmd.Env) (string, bool) {
	if x := env.Getenv("XDG_CACHE_HOME"); x != "" {
		return x, filepath.IsAbs(x)
	}
	home := env.Getenv("HOME")
	if home == "" {
		return "", false
	}
	return filepath.Join(home, ".cache"), true
}

// writable reports whether a directory can be created in dir (made first
// if it is missing, as the server would). Permission bits do not answer
// this: a read-only mount refuses root as well.
func writable(dir string) bool {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	probe, err := os.MkdirTemp(dir, ".hsymbol-probe-")
	if err != nil {
		return false
	}
	return os.Remove(probe) == nil
}

// withVars is environ with each variable in set given its value there:
// replaced in place, or appended when absent.
func withVars(environ []string, set map[string]string) []string {
	out := make([]string, 0, len(environ)+len(set))
	done := map[string]bool{}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if v, ok := set[name]; ok {
			if done[name] {
				continue
			}
			kv, done[name] = name+"="+v, true
		}
		out = append(out, kv)
	}
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if !done[name] {
			out = append(out, name+"="+set[name])
		}
	}
	return out
}
