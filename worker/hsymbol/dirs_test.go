//go:build linux

package hsymbol

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/worker/privcmd"
)

func TestServerDirs(t *testing.T) {
	gopls, _ := serverFor("go")
	tests := []struct {
		name    string
		environ func(writable, blocked string) []string
		// want maps a variable to its expected value after the rewrite;
		// "PRIVATE/x" means x inside the private directory, "-" unset.
		want    map[string]string
		wantErr string
		noRoot  bool // every candidate root is unwritable
	}{
		{name: "a writable cache is kept; TMPDIR is always private",
			environ: func(w, _ string) []string {
				return []string{"HOME=" + w, "XDG_CACHE_HOME=" + w + "/cache", "TMPDIR=" + w}
			},
			want: map[string]string{"XDG_CACHE_HOME": "WRITABLE/cache", "TMPDIR": "PRIVATE/tmp", "HOME": "WRITABLE", "GOCACHE": "-"}},
		{name: "HOME/.cache is the cache when XDG_CACHE_HOME is unset",
			environ: func(w, _ string) []string { return []string{"HOME=" + w} },
			want:    map[string]string{"XDG_CACHE_HOME": "-", "TMPDIR": "PRIVATE/tmp"}},
		{name: "read-only HOME: the cache moves into the private directory",
			environ: func(_, b string) []string { return []string{"HOME=" + b, "TMPDIR=" + b} },
			want:    map[string]string{"XDG_CACHE_HOME": "PRIVATE/cache", "TMPDIR": "PRIVATE/tmp", "GOCACHE": "-"}},
		{name: "read-only XDG_CACHE_HOME is replaced in place",
			environ: func(w, b string) []string { return []string{"XDG_CACHE_HOME=" + b, "HOME=" + w} },
			want:    map[string]string{"XDG_CACHE_HOME": "PRIVATE/cache"}},
		{name: "a relative XDG_CACHE_HOME is no cache (os.UserCacheDir refuses it)",
			environ: func(w, _ string) []string { return []string{"XDG_CACHE_HOME=rel", "HOME=" + w} },
			want:    map[string]string{"XDG_CACHE_HOME": "PRIVATE/cache"}},
		{name: "no HOME at all",
			environ: func(string, string) []string { return []string{"PATH=/bin"} },
			want:    map[string]string{"XDG_CACHE_HOME": "PRIVATE/cache", "TMPDIR": "PRIVATE/tmp"}},
		{name: "an explicit read-only GOCACHE moves with the private cache",
			environ: func(_, b string) []string { return []string{"HOME=" + b, "GOCACHE=" + b + "/gocache"} },
			want:    map[string]string{"GOCACHE": "PRIVATE/cache/go-build"}},
		{name: "an explicit read-only GOCACHE moves into a writable usual cache",
			environ: func(w, b string) []string { return []string{"HOME=" + w, "GOCACHE=" + b} },
			want:    map[string]string{"GOCACHE": "WRITABLE/.cache/go-build", "XDG_CACHE_HOME": "-"}},
		{name: "a writable GOCACHE is kept",
			environ: func(w, b string) []string { return []string{"HOME=" + b, "GOCACHE=" + w + "/gocache"} },
			want:    map[string]string{"GOCACHE": "WRITABLE/gocache"}},
		{name: "no writable root: one line naming what was tried and what to do", noRoot: true,
			environ: func(w, _ string) []string { return []string{"HOME=" + w} },
			wantErr: "no writable directory for gopls's cache and temporary files (tried BLOCKED/a, BLOCKED/b); set TMPDIR to a writable directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			writable := t.TempDir()
			blocked := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(blocked, nil, 0o400); err != nil {
				t.Fatal(err)
			}
			spare := t.TempDir()
			roots := []string{filepath.Join(blocked, "a"), spare}
			if tc.noRoot {
				roots = []string{filepath.Join(blocked, "a"), filepath.Join(blocked, "b")}
			}
			env := &privcmd.Env{Environ: tc.environ(writable, blocked)}
			d, err := newServerDirs(env, gopls, roots)
			if tc.wantErr != "" {
				want := strings.ReplaceAll(tc.wantErr, "BLOCKED", blocked)
				if err == nil || err.Error() != want {
					t.Fatalf("error %v, want %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(d.private) != spare {
				t.Fatalf("private directory %s is not in the first writable root %s", d.private, spare)
			}
			for name, want := range tc.want {
				want = strings.NewReplacer("PRIVATE", d.private, "WRITABLE", writable).Replace(want)
				value, set := lookup(d.environ, name)
				switch {
				case want == "-" && set:
					t.Errorf("%s=%s, want it unset", name, value)
				case want != "-" && value != want:
					t.Errorf("%s=%q, want %q", name, value, want)
				}
				if want != "-" && strings.HasPrefix(want, d.private) {
					if fi, err := os.Stat(want); err != nil || !fi.IsDir() {
						t.Errorf("%s=%s is not a directory: %v", name, want, err)
					}
				}
			}
			if n := countVar(d.environ, "TMPDIR"); n != 1 {
				t.Errorf("TMPDIR appears %d times in %q", n, d.environ)
			}
			d.remove()
			if entries, _ := os.ReadDir(spare); len(entries) != 0 {
				t.Errorf("remove left %v", entries)
			}
		})
	}
}

func lookup(environ []string, name string) (string, bool) {
	for _, kv := range environ {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v, true
		}
	}
	return "", false
}

func countVar(environ []string, name string) int {
	n := 0
	for _, kv := range environ {
		if strings.HasPrefix(kv, name+"=") {
			n++
		}
	}
	return n
}

func TestWithVars(t *testing.T) {
	got := withVars([]string{"A=1", "TMPDIR=/x", "B=2", "TMPDIR=/y"}, map[string]string{"TMPDIR": "/p", "XDG_CACHE_HOME": "/c", "GOCACHE": "/g"})
	want := "A=1 TMPDIR=/p B=2 GOCACHE=/g XDG_CACHE_HOME=/c"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
