//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hpatch-router/worker/snapshot"
)

// TestDoctorOneRouterPerRoot (issue 33 case 11): doctor fails when two
// routers serve one runtime root (the lock holder and a live router that
// registered a snapshot without the lock, as a build before the lock
// does), or when the router Codex talks to is not the one holding the
// root; one router, a dead one's leftovers or none pass.
func TestDoctorOneRouterPerRoot(t *testing.T) {
	pid := strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		name      string
		lockAddr  string // "" → nobody holds the lock
		snapshot  string // "live": a snapshot of another running process; "dead": of one that is gone
		routerURL string
		routerUp  bool
		wantOK    bool
		want      []string
		wantFix   string
	}{
		{name: "nothing", routerURL: "http://127.0.0.1:8080", wantOK: true, want: []string{"no router serves"}},
		{name: "one router holding the lock", lockAddr: "127.0.0.1:8080", routerURL: "http://127.0.0.1:8080", routerUp: true,
			wantOK: true, want: []string{"pid " + pid + ", listening on 127.0.0.1:8080"}},
		{name: "one router on all interfaces", lockAddr: "0.0.0.0:8080", routerURL: "http://127.0.0.1:8080", routerUp: true, wantOK: true},
		{name: "a dead router's snapshot", lockAddr: "127.0.0.1:8080", snapshot: "dead", routerURL: "http://127.0.0.1:8080", routerUp: true, wantOK: true},
		{name: "a second live router without the lock", lockAddr: "127.0.0.1:8080", snapshot: "live", routerURL: "http://127.0.0.1:8080", routerUp: true,
			want: []string{"2 routers serve", "pid " + pid, "without the root's lock"}},
		{name: "Codex's router is not the holder", lockAddr: "127.0.0.1:8080", routerURL: "http://127.0.0.1:8095", routerUp: true,
			want: []string{"a router answers at http://127.0.0.1:8095 too"}, wantFix: "codex-config --listen 127.0.0.1:8080"},
		{name: "the holder on another port, nothing answering", lockAddr: "127.0.0.1:8080", routerURL: "http://127.0.0.1:8095", wantOK: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newFakeMachine(t)
			if tc.lockAddr != "" {
				l, err := snapshot.LockRoot(m.rtDir, tc.lockAddr, os.Getuid())
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
			}
			switch tc.snapshot {
			case "live":
				cmd := exec.Command("sleep", "60")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
				writeSnapshot(t, m.rtDir, cmd.Process.Pid, processStart(t, cmd.Process.Pid))
			case "dead":
				writeSnapshot(t, m.rtDir, os.Getpid(), processStart(t, os.Getpid())+1) // the pid lives on, started at another time
			}
			got := checkOneRouterPerRoot(m.doctorEnv(), tc.routerURL, tc.routerUp)
			if got.OK != tc.wantOK || !got.Required || (!got.OK && got.Fix == "") {
				t.Errorf("got %+v, want ok=%v, required, a fix when failing", got, tc.wantOK)
			}
			if !strings.Contains(got.Fix, tc.wantFix) {
				t.Errorf("fix %q lacks %q", got.Fix, tc.wantFix)
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Detail, w) {
					t.Errorf("detail %q lacks %q", got.Detail, w)
				}
			}
		})
	}
}

// writeSnapshot registers a snapshot of process pid (started at start) in
// root, as a router does.
func writeSnapshot(t *testing.T, root string, pid int, start uint64) {
	t.Helper()
	data := snapshot.Manifest{Exe: "/usr/bin/hpatch-router", SHA256: "00", PID: pid, Start: start}.Encode()
	dir := filepath.Join(root, snapshot.DirName(snapshot.Digest(data)))
	must(t, os.Mkdir(dir, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, snapshot.ManifestName), data, 0o600))
}

// processStart is field 22 of /proc/PID/stat: the start time in clock
// ticks since boot.
func processStart(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	start, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return start
}
