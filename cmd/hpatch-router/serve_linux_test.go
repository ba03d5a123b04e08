package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/internal/testuser"
	"hpatch-router/router"
	"hpatch-router/worker/snapshot"
)

func fakeEnv(vars map[string]string) serveEnv {
	return serveEnv{
		getenv:  func(k string) string { return vars[k] },
		homeDir: func() (string, error) { return "/home/u", nil },
		uid:     1000,
	}
}

func TestServeFlagDefaults(t *testing.T) {
	var out, errb bytes.Buffer
	s := stdio{nil, &out, &errb}
	cfg, code := parseServeFlags(nil, fakeEnv(nil), s)
	if cfg == nil || code != 0 {
		t.Fatalf("code %d: %s", code, errb.String())
	}
	if cfg.listen != "127.0.0.1:8080" || cfg.upstream.String() != "https://chatgpt.com/backend-api/codex" ||
		cfg.mode != router.ModeHPatch || cfg.runtimeDir != "/tmp/hpatch-router-1000" || cfg.stateDir != "/home/u/.local/state/hpatch-router" ||
		cfg.logLevel != slog.LevelInfo || cfg.responseStartTimeout != router.DefaultResponseStartTimeout {
		t.Fatalf("defaults %+v", cfg)
	}
	cfg, _ = parseServeFlags(nil, fakeEnv(map[string]string{"HPATCH_RUNTIME_DIR": "/run/h", "XDG_STATE_HOME": "/var/st"}), s)
	if cfg.runtimeDir != "/run/h" || cfg.stateDir != "/var/st/hpatch-router" {
		t.Fatalf("env defaults %+v", cfg)
	}
	cfg, _ = parseServeFlags(nil, fakeEnv(map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", "TMPDIR": "/var/tmp"}), s)
	if cfg.runtimeDir != "/run/user/1000/hpatch-router" {
		t.Fatalf("XDG_RUNTIME_DIR default %+v", cfg)
	}
	cfg, _ = parseServeFlags(nil, fakeEnv(map[string]string{"TMPDIR": "/var/tmp"}), s)
	if cfg.runtimeDir != "/var/tmp/hpatch-router-1000" {
		t.Fatalf("per-user temp default %+v", cfg)
	}
	cfg, _ = parseServeFlags([]string{"--mode", "passthrough", "--listen", ":9", "--log-level", "debug",
		"--response-start-timeout", "3s", "--stream-idle-timeout", "4s", "--upstream", "http://x:1/v"}, fakeEnv(nil), s)
	if cfg.mode != router.ModePassthrough || cfg.listen != ":9" || cfg.logLevel != slog.LevelDebug ||
		cfg.responseStartTimeout != 3*time.Second || cfg.streamIdleTimeout != 4*time.Second || cfg.upstream.Host != "x:1" {
		t.Fatalf("flags %+v", cfg)
	}
}

func TestServeFlagErrorsAndHelp(t *testing.T) {
	for _, args := range [][]string{
		{"--mode", "nope"}, {"--upstream", "not a url"}, {"--log-level", "loud"},
		{"--runtime-dir", "relative"}, {"extra"}, {"--no-such-flag"},
		{"--max-request-memory", "1000", "--max-request-body", "2000"},
	} {
		var out, errb bytes.Buffer
		if cfg, code := parseServeFlags(args, fakeEnv(nil), stdio{nil, &out, &errb}); cfg != nil || code != 2 || errb.Len() == 0 {
			t.Errorf("%v: code %d, stderr %q", args, code, errb.String())
		}
	}
	// 14.6: a relative HPATCH_RUNTIME_DIR is refused in one line, not
	// replaced by the temp dir; an explicit --runtime-dir still wins.
	var errb bytes.Buffer
	relative := fakeEnv(map[string]string{"HPATCH_RUNTIME_DIR": "run/h"})
	if cfg, code := parseServeFlags(nil, relative, stdio{nil, io.Discard, &errb}); cfg != nil || code != 2 ||
		!strings.Contains(errb.String(), `HPATCH_RUNTIME_DIR="run/h" is not an absolute path`) || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("relative HPATCH_RUNTIME_DIR: code %d, stderr %q", code, errb.String())
	}
	if cfg, _ := parseServeFlags([]string{"--runtime-dir", "/abs"}, relative, stdio{nil, io.Discard, io.Discard}); cfg == nil || cfg.runtimeDir != "/abs" {
		t.Errorf("--runtime-dir with a relative HPATCH_RUNTIME_DIR: %+v", cfg)
	}
	var out bytes.Buffer
	if cfg, code := parseServeFlags([]string{"--help"}, fakeEnv(nil), stdio{nil, &out, io.Discard}); cfg != nil || code != 0 {
		t.Fatal("--help")
	}
	for _, f := range []string{"--listen", "--upstream", "--mode", "--runtime-dir", "--state-dir", "--log-level",
		"--response-start-timeout", "--stream-idle-timeout", "--max-request-body", "--max-request-memory", "--shutdown-grace", "--allow-remote"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("--help does not document %s", f)
		}
	}
}

// TestServeRunsAndShutsDown starts the real server on a free port in front
// of a fake upstream, forwards a request and shuts down on cancel.
func TestServeRunsAndShutsDown(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"e1"`)
		io.WriteString(w, r.URL.RequestURI()+" "+r.Header.Get("Authorization"))
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL + "/codex")
	runtimeDir := t.TempDir()
	cfg := &serveConfig{
		listen: "127.0.0.1:0", upstream: u, mode: router.ModeHPatch,
		runtimeDir: runtimeDir, stateDir: filepath.Join(t.TempDir(), "state"),
		responseStartTimeout: time.Minute, streamIdleTimeout: time.Minute,
		maxRequestBody: 1 << 20, shutdownGrace: time.Second,
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, slog.New(slog.DiscardHandler), func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequest("GET", "http://"+addr+"/v1/models?client_version=0.169.0", nil)
	req.Header.Set("Authorization", "Bearer k")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "/codex/models?client_version=0.169.0 Bearer k" || resp.Header.Get("ETag") != `"e1"` {
		t.Fatalf("got %q %v", b, resp.Header)
	}
	client.CloseIdleConnections()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not shut down")
	}
	if _, err := os.Stat(cfg.stateDir); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}

// 13.5: serve refuses a runtime root another user could control — owned
// by someone else (another user created the predictable name first) or
// writable by group/others — with one line and a nonzero exit, before it
// creates anything in it.
func TestServeRefusesUntrustedRuntimeRoot(t *testing.T) {
	cases := map[string]func(t *testing.T, dir string){
		"world-writable": func(t *testing.T, dir string) { must(t, os.Chmod(dir, 0o777)) },
		"group-writable": func(t *testing.T, dir string) { must(t, os.Chmod(dir, 0o770)) },
	}
	if os.Getuid() == 0 {
		cases["owned by another user"] = func(t *testing.T, dir string) { must(t, os.Chown(dir, 65534, 65534)) }
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "hpatch-router-squat")
			must(t, os.Mkdir(dir, 0o700))
			spoil(t, dir)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a hang only
			defer cancel()
			var errb bytes.Buffer
			code := runServe(ctx, []string{"--listen", "127.0.0.1:0", "--runtime-dir", dir, "--state-dir", "", "--dashboard=false"}, stdio{nil, io.Discard, &errb})
			msg := errb.String()
			if code == 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "runtime root "+dir) {
				t.Fatalf("exit %d, stderr %q; want a nonzero exit and one line about the runtime root", code, msg)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("serve created %d entries in the refused root", len(entries))
			}
		})
	}
}

// An XDG_RUNTIME_DIR (or TMPDIR) that su or sudo passed on from another
// user names a directory of theirs: serve refuses with one line that says
// so, and creates nothing there (as root it could, and would then serve
// from a directory the other user controls).
func TestServeRefusesRootInAnotherUsersDir(t *testing.T) {
	if os.Getuid() != 0 {
		testenv.Missing(t, "root", "a directory of another user needs chown")
	}
	theirs := filepath.Join(t.TempDir(), "run-user-65534")
	must(t, os.Mkdir(theirs, 0o755))
	must(t, os.Chown(theirs, 65534, 65534))
	t.Setenv("HPATCH_RUNTIME_DIR", "")
	t.Setenv("XDG_RUNTIME_DIR", theirs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a hang only
	defer cancel()
	var errb bytes.Buffer
	code := runServe(ctx, []string{"--listen", "127.0.0.1:0", "--state-dir", "", "--dashboard=false"}, stdio{nil, io.Discard, &errb})
	msg := errb.String()
	want := "runtime root " + filepath.Join(theirs, snapshot.RootName) + " is in " + theirs + ", which belongs to uid 65534"
	if code == 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, want) || !strings.Contains(msg, "unset XDG_RUNTIME_DIR, or set HPATCH_RUNTIME_DIR") {
		t.Fatalf("exit %d, stderr %q; want a nonzero exit and one line containing %q", code, msg, want)
	}
	if entries, _ := os.ReadDir(theirs); len(entries) != 0 {
		t.Errorf("serve created %d entries in another user's directory", len(entries))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// 13.5: the default root hpatch-router-<uid> is a predictable name in a
// shared temp dir. Another local user who creates it first — with a
// thread directory planted inside — gets a refusal, not a router that
// serves from their directory.
func TestServeRefusesSquattedDefaultRoot(t *testing.T) {
	attacker := testuser.New(t, "/usr/sbin/nologin")
	shared := testuser.SharedTemp(t)
	t.Setenv("TMPDIR", shared)
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("HPATCH_RUNTIME_DIR", "")
	root := filepath.Join(shared, "hpatch-router-"+strconv.Itoa(os.Getuid()))
	attacker.Run(t, "mkdir", "-m", "0755", root, filepath.Join(root, "hpatch-victim-thread"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a hang only
	defer cancel()
	var errb bytes.Buffer
	code := runServe(ctx, []string{"--listen", "127.0.0.1:0", "--state-dir", "", "--dashboard=false"}, stdio{nil, io.Discard, &errb})
	want := "runtime root " + root + " is owned by uid " + strconv.Itoa(attacker.UID)
	if code == 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), want) {
		t.Fatalf("exit %d, stderr %q; want a nonzero exit and one line containing %q", code, errb.String(), want)
	}
}

// TestServeRefusesRemoteListen: an address other hosts can reach is
// refused with one line naming --allow-remote, before anything is created
// on disk; with --allow-remote it serves.
func TestServeRefusesRemoteListen(t *testing.T) {
	var errb bytes.Buffer
	cfg, _ := parseServeFlags([]string{"--listen", "0.0.0.0:0"}, fakeEnv(nil), stdio{nil, io.Discard, &errb})
	if cfg == nil || cfg.allowRemote {
		t.Fatalf("flags: %v %s", cfg, errb.String())
	}
	cfg.upstream, _ = url.Parse("http://127.0.0.1:9/v1")
	cfg.runtimeDir = filepath.Join(t.TempDir(), "runtime")
	cfg.stateDir = filepath.Join(t.TempDir(), "state")
	err := serve(context.Background(), cfg, slog.New(slog.DiscardHandler), func(string) { t.Error("listening") })
	if err == nil || !strings.Contains(err.Error(), "--allow-remote") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("serve = %v, want one line naming --allow-remote", err)
	}
	// The address as the user gave it, not Go's [::] for 0.0.0.0.
	if !strings.HasPrefix(err.Error(), "--listen 0.0.0.0:0 accepts connections") || strings.Contains(err.Error(), "[::]") {
		t.Errorf("serve = %v, want the address as given", err)
	}
	for _, dir := range []string{cfg.runtimeDir, cfg.stateDir} {
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was created (%v)", dir, err)
		}
	}
	if code := runServe(context.Background(), []string{"--listen", "0.0.0.0:0", "--runtime-dir", cfg.runtimeDir}, stdio{nil, io.Discard, io.Discard}); code == 0 {
		t.Fatal("runServe exit 0 for a remote --listen")
	}

	cfg, _ = parseServeFlags([]string{"--listen", "0.0.0.0:0", "--allow-remote", "--mode", "passthrough"}, fakeEnv(nil), stdio{nil, io.Discard, io.Discard})
	if !cfg.allowRemote {
		t.Fatal("--allow-remote not parsed")
	}
	cfg.upstream, _ = url.Parse("http://127.0.0.1:9/v1")
	cfg.stateDir = ""
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, slog.New(slog.DiscardHandler), func(string) { cancel() }) }()
	if err := <-done; err != nil {
		t.Fatalf("--allow-remote: %v", err)
	}
	var out bytes.Buffer
	parseServeFlags([]string{"--help"}, fakeEnv(nil), stdio{nil, &out, io.Discard})
	if !strings.Contains(out.String(), "--allow-remote") || !strings.Contains(out.String(), "cannot be identified") {
		t.Error("--help does not explain --allow-remote")
	}
}

// A newcomer's mistakes at start-up get one plain line that names the flag
// and says what to do, as the other flag errors do: a bad value exits 2
// before anything starts, a start that fails exits 1. None is a log record
// (`time=… level=ERROR msg="serve failed" err="…"`, with its quotes escaped).
func TestServeStartupErrorsSayWhatToDo(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	file := filepath.Join(t.TempDir(), "file")
	must(t, os.WriteFile(file, nil, 0o600))
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"upstream scheme", []string{"--upstream", "ftp://x/v1"}, 2, []string{`--upstream "ftp://x/v1"`, "http or https"}},
		{"start timeout", []string{"--response-start-timeout", "0s"}, 2, []string{"--response-start-timeout 0s", "positive"}},
		{"idle timeout", []string{"--stream-idle-timeout", "-1s"}, 2, []string{"--stream-idle-timeout -1s", "positive"}},
		{"body limit", []string{"--max-request-body", "0"}, 2, []string{"--max-request-body 0", "positive"}},
		{"grace", []string{"--shutdown-grace", "-1s"}, 2, []string{"--shutdown-grace -1s", "0 or more"}},
		{"listen without port", []string{"--listen", "127.0.0.1"}, 2, []string{`--listen "127.0.0.1"`, "HOST:PORT"}},
		{"listen busy", []string{"--listen", busy.Addr().String()}, 1, []string{"--listen " + busy.Addr().String(), "in use", "another port"}},
		{"state dir", []string{"--state-dir", filepath.Join(file, "state")}, 1, []string{"replay state directory", "in memory"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds a hang only
			defer cancel()
			args := append([]string{"--listen", "127.0.0.1:0", "--runtime-dir", filepath.Join(t.TempDir(), "rt"),
				"--state-dir", "", "--dashboard=false"}, tc.args...)
			var errb bytes.Buffer
			code := runServe(ctx, args, stdio{nil, io.Discard, &errb})
			msg := errb.String()
			if code != tc.code || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "hpatch-router serve: ") {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line starting hpatch-router serve:", code, msg, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q does not say %q", msg, w)
				}
			}
		})
	}
}
