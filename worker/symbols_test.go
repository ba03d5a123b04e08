//go:build linux

package worker_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/rows"
)

// goModule writes a two-package Go module and returns its directory.
func goModule(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/sym\n\ngo 1.22\n",
		"main.go":      "package main\n\nimport \"example.com/sym/util\"\n\nfunc main() {\n\tprintln(util.Shout(\"a\"), util.Shout(\"b\"))\n}\n",
		"util/util.go": "package util\n\n// Shout upper-cases s.\nfunc Shout(s string) string {\n\treturn s + \"!\"\n}\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, []byte(text), 0o644))
	}
	return dir
}

// goplsChildren is a script line printing "gopls PID" for each gopls the
// worker (the parent of the sh it starts) runs.
const goplsChildren = `sh -c 'for p in $(cat /proc/$PPID/task/*/children); do [ "$(cat /proc/$p/comm 2>/dev/null)" = gopls ] && echo "gopls $p"; done; true'`

// TestRunEndsItsLanguageServer: the hsymbol calls of one worker run share
// one gopls, which is still running at the script's last line and gone,
// with everything in its process group, when the worker exits — however
// the run ended — without any leftover or detached-process report, and
// even when the worker itself is killed.
func TestRunEndsItsLanguageServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts gopls")
	}
	testenv.NeedTool(t, "gopls")
	testenv.NeedTool(t, "go")
	e := newEnv(t)
	home := testenv.FreshHome(t)
	mod := goModule(t)
	calls := "cd " + mod + "\n" +
		"hsymbol def main.go 6:" + rowHash("\tprintln(util.Shout(\"a\"), util.Shout(\"b\"))") + " Shout 1\n" +
		"cd util && hsymbol refs util.go 4:" + rowHash("func Shout(s string) string {") + " Shout\n" +
		goplsChildren + "\n"
	wantRows := `"util/util.go":4:` + rowHash("func Shout(s string) string {") + " func Shout(s string) string {\n"
	tests := []struct {
		name     string
		tail     string         // after the calls
		signal   syscall.Signal // sent to the worker once the calls are done
		code     int
		stderrRE string
	}{
		{name: "success", code: 0, stderrRE: `^$`},
		{name: "error", tail: "exit 3\n", code: 3, stderrRE: `^$`},
		{name: "overflow", tail: "head -c 5000000 /dev/zero\n", code: 125, stderrRE: `^shell: output exceeded \d+ bytes [^\n]*\n$`},
		{name: "signal while the server is idle", tail: "echo calls-done\nsleep 30\n", signal: syscall.SIGTERM, code: 143,
			stderrRE: `^shell: stopped by SIGTERM; running commands and their process groups were terminated\n$`},
		// Nothing of the worker runs after SIGKILL: gopls goes by its
		// parent-death signal.
		{name: "the worker is killed", tail: "echo calls-done\nsleep 3021 >/dev/null 2>&1\n", signal: syscall.SIGKILL, code: -1, stderrRE: `^$`},
	}
	track(t, "sleep 3021") // the killed worker's sleep outlives it
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := e.command(t.Context(), "bash", calls+tc.tail)
			cmd.Env = home.Environ(e.environ())
			out, err := cmd.StdoutPipe()
			must(t, err)
			var errb strings.Builder
			cmd.Stderr = &errb
			must(t, cmd.Start())
			var stdout strings.Builder
			var server int
			br := bufio.NewReader(out)
			for {
				raw, long, err := br.ReadLine()
				if err != nil {
					break
				}
				for long && err == nil { // the overflow's NULs: not a line of ours
					_, long, err = br.ReadLine()
					raw = nil
				}
				line := string(raw)
				if pid, ok := strings.CutPrefix(line, "gopls "); ok {
					if server != 0 {
						t.Errorf("a second gopls runs: %s", line)
					}
					server, _ = strconv.Atoi(pid)
					continue
				}
				if line == "calls-done" && tc.signal != 0 {
					must(t, cmd.Process.Signal(tc.signal))
					continue
				}
				if raw != nil {
					stdout.WriteString(line + "\n")
				}
			}
			code := waitExit(t, cmd, 60*time.Second)
			if code != tc.code || !regexp.MustCompile(tc.stderrRE).MatchString(errb.String()) {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, errb.String())
			}
			if !strings.HasPrefix(stdout.String(), wantRows) || !strings.Contains(stdout.String(), `"util.go":4:`) {
				t.Fatalf("stdout %q", stdout.String())
			}
			if server == 0 {
				t.Fatal("no gopls was running at the script's last line")
			}
			// SIGKILLed members may take a moment to finish exiting.
			alive := groupAlive(server)
			for deadline := time.Now().Add(30 * time.Second); len(alive) != 0 && time.Now().Before(deadline); alive = groupAlive(server) {
				time.Sleep(10 * time.Millisecond)
			}
			if len(alive) != 0 {
				t.Fatalf("gopls's group %d still runs %v after the worker exited", server, alive)
			}
		})
	}
}

// rowHash is the HASH of a row's text, as hread prints it.
func rowHash(text string) string { return rows.Hash([]byte(text)) }

// groupAlive lists the running (not zombie) processes of group pgid.
func groupAlive(pgid int) []int {
	return liveProcs(func(_ int, stat []string) bool { return stat[2] == strconv.Itoa(pgid) })
}
