package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"hpatch-router/internal/buildstamp"
	"hpatch-router/internal/testenv"
	"hpatch-router/worker/snapshot"
)

// fakeMachine is a throw-away environment for the doctor: a PATH directory,
// a home, a CODEX_HOME and a runtime root, all under t.TempDir().
type fakeMachine struct {
	t                           *testing.T
	bin, home, codexHome, rtDir string
	env                         map[string]string
	self                        string
	loginShell                  string // the passwd entry's shell
}

func newFakeMachine(t *testing.T) *fakeMachine {
	t.Helper()
	base := t.TempDir()
	m := &fakeMachine{t: t, bin: filepath.Join(base, "bin"), home: filepath.Join(base, "home"),
		codexHome: filepath.Join(base, "codex"), rtDir: filepath.Join(base, "run")}
	for _, d := range []string{m.bin, m.home, m.codexHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(m.rtDir, 0o700); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m.self = self
	m.env = map[string]string{"PATH": m.bin, "HOME": m.home, "CODEX_HOME": m.codexHome, "HPATCH_RUNTIME_DIR": m.rtDir}
	// Codex's fallback shell and the pinned one: the machine's bash.
	if err := os.Symlink(testenv.NeedTool(t, "bash"), filepath.Join(m.bin, "bash")); err != nil {
		t.Fatal(err)
	}
	m.loginShell = "/bin/bash"
	return m
}

func (m *fakeMachine) doctorEnv() doctorEnv {
	return doctorEnv{
		getenv:  func(k string) string { return m.env[k] },
		homeDir: func() (string, error) { return m.home, nil },
		uid:     os.Getuid(),
		passwdShell: func(uid int) (string, error) {
			if uid != os.Getuid() {
				return "", errors.New("wrong uid")
			}
			return m.loginShell, nil
		},
		selfExe:   func() (string, error) { return m.self, nil },
		selfStamp: fakeRouterStamp,
		// The fake helpers are scripts: ask them as helperStampOf asks a
		// Go build of the helper, without its build-info gate.
		helperStamp: func(ctx context.Context, path string) (buildstamp.Stamp, error) {
			out, err := exec.CommandContext(ctx, path, "--version").Output()
			if err != nil {
				return buildstamp.Stamp{}, err
			}
			return buildstamp.Parse(string(out))
		},
		client: http.DefaultClient,
	}
}

// fakeRouterStamp is the fake machine's router build.
var fakeRouterStamp = buildstamp.Stamp{Version: "v1-2-g0123abcd", Commit: "0123abcd", Protocol: snapshot.Protocol}

// helperScript is a fake helper that answers `--version` with st.
func helperScript(st buildstamp.Stamp) []byte {
	return []byte("#!/bin/sh\necho '" + st.Line() + "'\n")
}

// install writes an executable named name into the PATH directory.
func (m *fakeMachine) install(name string, content []byte) {
	m.t.Helper()
	if err := os.WriteFile(filepath.Join(m.bin, name), content, 0o755); err != nil {
		m.t.Fatal(err)
	}
}

// installSameBuildHelper installs as `shell` a helper of the router's
// commit and protocol.
func (m *fakeMachine) installSameBuildHelper() {
	m.t.Helper()
	m.install("shell", helperScript(fakeRouterStamp))
}

func (m *fakeMachine) writeCodexConfig(src string) {
	m.t.Helper()
	if err := os.WriteFile(filepath.Join(m.codexHome, "config.toml"), []byte(src), 0o600); err != nil {
		m.t.Fatal(err)
	}
}

// fakeRouter answers like hpatch-router: /healthz, and /v1/models with the
// given status and body.
func fakeRouter(t *testing.T, modelsStatus int, modelsBody string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			_, _ = io.WriteString(w, "ok\n")
		case "/v1/models":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(modelsStatus)
			_, _ = io.WriteString(w, modelsBody)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func providerConfig(base string) string {
	return "model_provider = \"hpatch\"\n\n[model_providers.hpatch]\nname = \"hpatch-router\"\nbase_url = \"" + base +
		"/v1\"\nwire_api = \"responses\"\nrequires_openai_auth = true\n"
}

func runDoctorJSON(t *testing.T, m *fakeMachine, args ...string) ([]check, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := doctorMain(context.Background(), append([]string{"--json"}, args...), m.doctorEnv(), stdio{strings.NewReader(""), &out, &errb})
	var checks []check
	if err := json.Unmarshal(out.Bytes(), &checks); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out.String(), errb.String())
	}
	return checks, code
}

func byName(checks []check) map[string]check {
	m := map[string]check{}
	for _, c := range checks {
		m[c.Name] = c
	}
	return m
}

func TestDoctorAllRequiredPass(t *testing.T) {
	m := newFakeMachine(t)
	m.installSameBuildHelper()
	m.install("rg", []byte("#!/bin/sh\n"))
	srv := fakeRouter(t, 200, `{"models":[]}`)
	m.writeCodexConfig(providerConfig(srv.URL))
	m.registerLauncher(m.self) // what the router answering there registered
	checks, code := runDoctorJSON(t, m, "--router", srv.URL)
	got := byName(checks)
	if code != 0 {
		t.Fatalf("exit %d: %+v", code, checks)
	}
	for _, name := range []string{"helper", "helper-build", "runtime-root", "codex-provider", "codex-selected", "router-health", "upstream-models", "tool-rg"} {
		if !got[name].OK {
			t.Errorf("%s failed: %+v", name, got[name])
		}
	}
	for _, name := range []string{"tool-gopls", "tool-python3", "tool-node"} {
		c := got[name]
		if c.OK || c.Required || c.Fix == "" || !strings.Contains(c.Detail, "without it") {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if !strings.Contains(got["tool-rg"].Detail, "hgrep") {
		t.Errorf("rg does not say what it enables: %+v", got["tool-rg"])
	}
}

func TestDoctorTextOutput(t *testing.T) {
	m := newFakeMachine(t)
	srv := fakeRouter(t, 200, `{"models":[]}`)
	m.writeCodexConfig(providerConfig(srv.URL))
	m.registerLauncher(m.self) // what the router answering there registered
	var out bytes.Buffer
	code := doctorMain(context.Background(), []string{"--router", srv.URL}, m.doctorEnv(), stdio{strings.NewReader(""), &out, io.Discard})
	text := out.String()
	if code != 1 {
		t.Fatalf("exit %d without a helper", code)
	}
	for _, want := range []string{
		"✗ shell helper on PATH (required): no executable named shell on PATH\n    fix: run `make install`",
		"✓ router answers /healthz (required): " + srv.URL + "/healthz: ok\n",
		"✗ node (advisory): not on PATH",
		"○ shell helper fits this router (commit and protocol) (required): skipped: no helper found",
		"1 required check(s) failed; 4 advisory. 2 skipped.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// TestDoctorHelperBuild: the helper fits when its commit and protocol are
// the router's, however either was built; a script, another commit or
// another protocol fails with the fix; no helper is a skip, not a second ✗.
func TestDoctorHelperBuild(t *testing.T) {
	m := newFakeMachine(t)
	short := fakeRouterStamp
	short.Commit, short.Version, short.Dirty = "0123abcd", "0123abcd-dirty", true
	full := fakeRouterStamp
	full.Commit = "0123abcd" + strings.Repeat("e", 32)
	unknown := fakeRouterStamp
	unknown.Commit, unknown.Version = "", "dev"
	otherCommit := fakeRouterStamp
	otherCommit.Commit = "fedcba98"
	otherProto := fakeRouterStamp
	otherProto.Protocol++
	for _, tc := range []struct {
		name   string
		helper []byte
		ok     bool
		detail string
	}{
		{"same stamp", helperScript(fakeRouterStamp), true, "commit 0123abcd, protocol"},
		{"same commit, dirty tree, other version text", helperScript(short), true, "commit 0123abcd+dirty"},
		{"full revision of the same commit", helperScript(full), true, "commit 0123abcdeeee"},
		{"no commit known", helperScript(unknown), true, "compared the protocol only"},
		{"another commit", helperScript(otherCommit), false, "helper of commit fedcba98, router of commit 0123abcd"},
		{"another protocol", helperScript(otherProto), false, "helper protocol"},
		{"no --version", []byte("#!/bin/sh\nexit 2\n"), false, "exit status 2"},
		{"not a helper", []byte("#!/bin/sh\necho not a go binary\n"), false, "not the version line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m.install("shell", tc.helper)
			c := checkHelperBuild(context.Background(), checkHelperOnPath(m.bin, m.self), m.doctorEnv())
			if c.OK != tc.ok || !strings.Contains(c.Detail, tc.detail) || (!c.OK && !strings.Contains(c.Fix, "make install")) {
				t.Fatalf("%+v; want ok=%v with %q", c, tc.ok, tc.detail)
			}
		})
	}
	c := checkHelperBuild(context.Background(), checkHelperOnPath("", m.self), m.doctorEnv())
	if c.OK || !c.Skipped || !strings.Contains(c.Detail, "skipped: no helper found") || c.Fix != "" {
		t.Fatalf("no helper: %+v; want a skip without a fix of its own", c)
	}
}

// TestHelperStampOfRunsOnlyTheHelper: the real reader starts a file only
// when its Go build info names the helper package; a script or another
// Go program named shell is refused unread.
func TestHelperStampOfRunsOnlyTheHelper(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "shell")
	must(t, os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755))
	if _, err := helperStampOf(context.Background(), script); err == nil || !strings.Contains(err.Error(), "not a Go build") {
		t.Fatalf("script: %v", err)
	}
	self, err := os.Executable()
	must(t, err)
	if _, err := helperStampOf(context.Background(), self); err == nil || !strings.Contains(err.Error(), "not of hpatch-router's helper") {
		t.Fatalf("another Go program: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("helperStampOf ran a file that is not the helper")
	}
}

// TestDoctorMisnamedHelper (issue 24): `go install` names the helper
// shell-helper, which no carrier calls. With no `shell` on PATH, doctor
// names the file to rename or link, whether shell-helper is on PATH or only
// beside the router; with an old `shell` of another build ahead of it, the
// fix is the misnamed helper of this build.
func TestDoctorMisnamedHelper(t *testing.T) {
	m := newFakeMachine(t)
	self := helperScript(fakeRouterStamp)
	m.install(goInstallName, self)
	misnamed := filepath.Join(m.bin, goInstallName)
	want := "mv " + misnamed + " " + filepath.Join(m.bin, "shell")
	if c := checkHelperOnPath(m.bin, m.self); c.OK || !strings.Contains(c.Fix, want) || !strings.Contains(c.Fix, "ln -s shell-helper "+filepath.Join(m.bin, "shell")) {
		t.Errorf("shell-helper on PATH: %+v; want a fix with %q", c, want)
	}
	beside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(beside, "hpatch-router"), self, 0o755))
	must(t, os.WriteFile(filepath.Join(beside, goInstallName), self, 0o755))
	must(t, os.Remove(misnamed))
	wantBeside := "mv " + filepath.Join(beside, goInstallName) + " " + filepath.Join(beside, "shell")
	if c := checkHelperOnPath(m.bin, filepath.Join(beside, "hpatch-router")); c.OK || !strings.Contains(c.Fix, wantBeside) {
		t.Errorf("shell-helper beside the router: %+v; want a fix with %q", c, wantBeside)
	}
	m.install(goInstallName, self)
	m.install("shell", []byte("#!/bin/sh\necho an older helper\n"))
	if c := checkHelperBuild(context.Background(), checkHelperOnPath(m.bin, m.self), m.doctorEnv()); c.OK || !strings.Contains(c.Fix, want) {
		t.Errorf("an old shell ahead of shell-helper: %+v; want a fix with %q", c, want)
	}
	if c := helperProblem(context.Background(), m.doctorEnv()); c.OK || !strings.Contains(c.Fix, want) {
		t.Errorf("serve's startup check: %+v", c)
	}
	m.installSameBuildHelper()
	if c := helperProblem(context.Background(), m.doctorEnv()); !c.OK {
		t.Errorf("serve's startup check with the right helper: %+v", c)
	}
}

func TestDoctorRuntimeRoot(t *testing.T) {
	m := newFakeMachine(t)
	dir := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	them := os.Getuid() + 4242
	cases := []struct {
		name, root string
		uid        int
		ok         bool
		detail     string
		fix        string // the fix must hold it
	}{
		{"A: private dir", mk("private", 0o700), os.Getuid(), true, "yours and private", ""},
		{"B: world-writable", mk("open", 0o777), os.Getuid(), false, "writable by group or others", "chmod go-w"},
		{"C: group-writable", mk("group", 0o770), os.Getuid(), false, "writable by group or others", "chmod go-w"},
		{"D: a shared sticky dir like /tmp is no runtime root", mk("sticky", 0o777|os.ModeSticky), os.Getuid(), false, "writable by group or others", "chmod go-w"},
		{"E: missing: serve creates it", filepath.Join(dir, "missing"), os.Getuid(), true, "does not exist yet", ""},
		{"F: not a directory", file, os.Getuid(), false, "not a directory", "remove it, or set HPATCH_RUNTIME_DIR"},
		{"G: relative is refused, not replaced", "relative/run", os.Getuid(), false, "not an absolute path", "absolute directory"},
		// Its victim cannot remove it from a sticky temp dir.
		{"H: owned by someone else", mk("theirs", 0o700), them, false, "not by you", "root to remove it, or set HPATCH_RUNTIME_DIR"},
		{"I: someone else's file", file, them, false, "not a directory of yours", "root to remove it, or set HPATCH_RUNTIME_DIR"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m.env["HPATCH_RUNTIME_DIR"] = c.root
			env := m.doctorEnv()
			env.uid = c.uid
			got := checkRuntimeRoot(env)
			if got.OK != c.ok || !strings.Contains(got.Detail, c.detail) || (!got.OK && !strings.Contains(got.Fix, c.fix)) || strings.Contains(got.Fix, "if it is yours") {
				t.Fatalf("%+v", got)
			}
		})
	}
	// Unset: $XDG_RUNTIME_DIR/hpatch-router, else a per-user name in the
	// temp dir — the rule the helper follows.
	delete(m.env, "HPATCH_RUNTIME_DIR")
	m.env["XDG_RUNTIME_DIR"] = mk("xdg", 0o700)
	if got := checkRuntimeRoot(m.doctorEnv()); !got.OK || !strings.Contains(got.Detail, filepath.Join(dir, "xdg", "hpatch-router")+" ($XDG_RUNTIME_DIR/hpatch-router) does not exist yet") {
		t.Fatalf("%+v", got)
	}
	delete(m.env, "XDG_RUNTIME_DIR")
	m.env["TMPDIR"] = dir
	env := m.doctorEnv()
	env.uid = 4242
	squat := mk("hpatch-router-4242", 0o700) // "another user" made it first: owned by us, not 4242
	if got := checkRuntimeRoot(env); got.OK || !strings.Contains(got.Detail, squat+" is owned by uid") {
		t.Fatalf("%+v", got)
	}
}

// The runtime root's line says whether scripts are retained in memory or
// on disk, for the directory itself or, before serve creates it, the
// nearest existing parent.
func TestStorageNote(t *testing.T) {
	for magic, want := range map[int64]string{
		unix.TMPFS_MAGIC:      "in memory (tmpfs)",
		unix.RAMFS_MAGIC:      "in memory (tmpfs)",
		unix.EXT4_SUPER_MAGIC: "on a disk file system",
		unix.XFS_SUPER_MAGIC:  "on a disk file system",
	} {
		if got := storageKind(magic); !strings.Contains(got, want) {
			t.Errorf("storageKind(%#x) = %q, want %q", magic, got, want)
		}
	}
	var st unix.Statfs_t
	dir := t.TempDir()
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	want := storageKind(int64(st.Type))
	for _, root := range []string{dir, filepath.Join(dir, "not", "yet")} {
		if got := storageNote(root); got != want {
			t.Errorf("storageNote(%s) = %q, want %q", root, got, want)
		}
	}
}

// registerLauncher writes the snapshot a running router would register for
// exe in the runtime root: its manifest records exe's identity now.
func (m *fakeMachine) registerLauncher(exe string) {
	m.t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(exe, &st); err != nil {
		m.t.Fatal(err)
	}
	man := snapshot.Manifest{Exe: exe, SHA256: strings.Repeat("0", 64), Dev: uint64(st.Dev), Ino: st.Ino,
		Size: st.Size, MtimeNs: st.Mtim.Nano(), PID: os.Getpid(), Start: 1}
	enc := man.Encode()
	dir := filepath.Join(m.rtDir, snapshot.DirName(snapshot.Digest(enc)))
	if err := os.Mkdir(dir, 0o700); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, snapshot.ManifestName), enc, 0o600); err != nil {
		m.t.Fatal(err)
	}
}

// A `make install` while the router runs replaces the binary it
// registered: every shell call then fails (126) until it restarts, and
// doctor, the README's first step when "nothing happens", must say so
// rather than pass every check.
func TestDoctorRegisteredLauncher(t *testing.T) {
	m := newFakeMachine(t)
	if c := checkRegisteredLaunchers(m.doctorEnv(), false); !c.OK || !strings.Contains(c.Detail, "no router has registered") {
		t.Errorf("empty root, no router: %+v", c)
	}
	// A router answers but registered nothing where the helper will look:
	// it serves another runtime root (started without the session's
	// XDG_RUNTIME_DIR, under another TMPDIR), and every shell call fails
	// with "no runtime for this thread".
	if c := checkRegisteredLaunchers(m.doctorEnv(), true); c.OK || !strings.Contains(c.Detail, "another runtime root") ||
		!strings.Contains(c.Fix, "HPATCH_RUNTIME_DIR="+m.rtDir) {
		t.Errorf("empty root, router up: %+v", c)
	}
	exe := filepath.Join(t.TempDir(), "hpatch-router")
	must(t, os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755))
	m.registerLauncher(exe)
	if c := checkRegisteredLaunchers(m.doctorEnv(), true); !c.OK || !strings.Contains(c.Detail, exe) || !c.Required {
		t.Errorf("registered and unchanged: %+v", c)
	}
	must(t, os.Remove(exe)) // make install writes a new file over the path
	must(t, os.WriteFile(exe, []byte("#!/bin/sh\n# rebuilt\n"), 0o755))
	c := checkRegisteredLaunchers(m.doctorEnv(), true)
	if c.OK || !strings.Contains(c.Detail, "is not the file the router registered") || !strings.Contains(c.Fix, "restart hpatch-router") {
		t.Errorf("replaced: %+v", c)
	}
	if all := runChecks(t.Context(), doctorOptions{router: "http://127.0.0.1:1"}, m.doctorEnv()); !slices.ContainsFunc(all, func(x check) bool { return x.Name == c.Name }) {
		t.Errorf("doctor does not run the %s check", c.Name)
	}
}

// A runtime root the helper refuses (another user's, a link they planted,
// loose permissions) is the runtime root check's failure: the launcher
// check does not list it (through a planted link it listed the target and
// passed; in another user's 0700 directory it failed with a bare
// "permission denied") and says it was skipped.
func TestDoctorLaunchersSkipRefusedRoot(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(m *fakeMachine, env *doctorEnv)
	}{
		{"another user's", func(m *fakeMachine, env *doctorEnv) { env.uid += 4242 }},
		{"world-writable", func(m *fakeMachine, env *doctorEnv) { must(t, os.Chmod(m.rtDir, 0o777)) }},
		{"a symbolic link", func(m *fakeMachine, env *doctorEnv) {
			link := filepath.Join(t.TempDir(), "planted")
			must(t, os.Symlink(m.rtDir, link))
			m.env["HPATCH_RUNTIME_DIR"] = link
			*env = m.doctorEnv()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newFakeMachine(t)
			env := m.doctorEnv()
			c.spoil(m, &env)
			for _, up := range []bool{false, true} {
				got := checkRegisteredLaunchers(env, up)
				if got.OK || got.Detail != "skipped: no usable runtime root (see runtime root)" {
					t.Errorf("router up %v: %+v", up, got)
				}
			}
		})
	}
}

// gopls without go on PATH starts and answers every query with "no
// views": the gopls line says so instead of "enables hsymbol for Go".
func TestDoctorGoplsNeedsGo(t *testing.T) {
	m := newFakeMachine(t)
	m.install("gopls", []byte("#!/bin/sh\n"))
	gopls := func() check {
		for _, c := range checkTools(m.env["PATH"]) {
			if c.Name == "tool-gopls" {
				return c
			}
		}
		t.Fatal("no gopls check")
		return check{}
	}
	if c := gopls(); c.OK || !strings.Contains(c.Detail, "go is not on PATH") || !strings.Contains(c.Fix, "Go's bin directory") {
		t.Errorf("gopls without go: %+v", c)
	}
	m.install("go", []byte("#!/bin/sh\n"))
	if c := gopls(); !c.OK || !strings.Contains(c.Detail, "enables hsymbol for Go") {
		t.Errorf("gopls with go: %+v", c)
	}
}
