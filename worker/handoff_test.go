//go:build linux

package worker_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/internal/testuser"
	"hpatch-router/shebang/oneline"
)

// cmdlinesWith lists the processes whose command line holds marker, with
// their command lines.
func cmdlinesWith(marker string) map[int]string {
	found := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(data), marker) {
			found[pid] = strings.ReplaceAll(string(data), "\x00", " ")
		}
	}
	return found
}

// 13.4: while a script runs, no process of the run — the helper exec'd
// into the worker, the interpreter, the commands the script starts —
// carries the body in /proc/<pid>/cmdline, which every local user can
// read. The body holds a unique marker; the script says when it is
// running and then sleeps in a child.
func TestProcScanNoBodyInCmdline(t *testing.T) {
	for _, c := range []struct {
		name   string
		escape bool
		args   func(marker string) []string
	}{
		{"bash body, child sleeping", false, func(m string) []string {
			return []string{"bash", "secret=" + m + "\necho started\nsleep 30 & wait\n"}
		}},
		{"python body", false, func(m string) []string {
			return []string{"python3", "-u", "import time\nsecret = '" + m + "'\nprint('started')\ntime.sleep(30)\n"}
		}},
		{"escaped body (-e) in sh", true, func(m string) []string {
			return []string{"sh", "secret=" + m + "\r\necho started\nsleep 30\n"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if args := c.args(""); args[0] == "python3" {
				testenv.NeedTool(t, "python3")
			}
			e := newEnv(t)
			var b [8]byte
			rand.Read(b[:])
			marker := "hpatch-secret-" + hex.EncodeToString(b[:])
			args := c.args(marker)
			if c.escape {
				fields, body := args[:len(args)-1], args[len(args)-1]
				args = append(append([]string{oneline.EscapeOption}, fields...), oneline.Escape(body))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := e.command(ctx, args...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out, err := cmd.StdoutPipe()
			must(t, err)
			must(t, cmd.Start())
			defer func() {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				cmd.Wait()
			}()
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || line != "started\n" {
				t.Fatalf("the script did not start: %q, %v", line, err)
			}
			if found := cmdlinesWith(marker); len(found) > 0 {
				t.Fatalf("the body is in the command line of %v", found)
			}
			// The scan saw the run: the worker (the helper's pid) is
			// alive with the descriptor in place of the body.
			self, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/cmdline")
			if !strings.Contains(string(self), "\x00/dev/fd/") {
				t.Fatalf("worker command line %q does not name the body descriptor", self)
			}
			if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/comm"); string(comm) != "hpatch-router\n" {
				t.Errorf("worker process name %q, want hpatch-router (not the exec descriptor's number)", comm)
			}
		})
	}
}

// 13.5: the launcher target is checked on the opened file before the
// helper execs it. Each attack replaces or loosens the registered router
// binary after the router wrote its manifest; the replacement would leave
// a mark if it ever ran.
func TestHelperChecksLauncherTargetBeforeExec(t *testing.T) {
	type attack struct {
		name  string
		spoil func(t *testing.T, exe, mark string)
		root  bool
		want  string
	}
	attacks := []attack{
		{"another file renamed over the registered one", func(t *testing.T, exe, mark string) {
			evil := exe + ".evil"
			must(t, os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755))
			must(t, os.Rename(evil, exe))
		}, false, "not the file the router registered"},
		{"the registered file made group/world-writable", func(t *testing.T, exe, mark string) {
			must(t, os.Chmod(exe, 0o777))
		}, false, "writable by group or others"},
		{"the registered file given to another user", func(t *testing.T, exe, mark string) {
			u := testuser.New(t, "/usr/sbin/nologin")
			must(t, os.Chown(exe, u.UID, u.GID))
		}, true, "neither you"},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			if a.root && os.Getuid() != 0 {
				testuser.New(t, "/usr/sbin/nologin") // skips, or fails under CI=true
			}
			dir := t.TempDir()
			exe := filepath.Join(dir, "hpatch-router")
			data, err := os.ReadFile(built.router)
			must(t, err)
			must(t, os.WriteFile(exe, data, 0o755))
			e := newEnvFor(t, t.TempDir(), exe)
			mark := filepath.Join(dir, "ran")
			a.spoil(t, exe, mark)
			refused(t, e.run("", "bash", "touch "+mark), 126, a.want)
			if _, err := os.Stat(mark); err == nil {
				t.Fatal("the swapped launcher target ran")
			}
		})
	}
}

// 13.5: another user who created this user's default root first, with a
// thread directory inside, gets a refusal from the helper, which derives
// the same root (hpatch-router-<uid> in TMPDIR) and checks its owner
// before it looks inside.
func TestHelperRefusesSquattedDefaultRoot(t *testing.T) {
	attacker := testuser.New(t, "/usr/sbin/nologin")
	shared := testuser.SharedTemp(t)
	root := filepath.Join(shared, "hpatch-router-"+strconv.Itoa(os.Getuid()))
	attacker.Run(t, "mkdir", "-m", "0755", root, filepath.Join(root, "hpatch-victim"))
	attacker.Run(t, "ln", "-s", "/bin/sh", filepath.Join(root, "hpatch-victim", ".runtime"))
	cmd := exec.Command(built.helper, "bash", "echo ran")
	cmd.Args[0] = "shell"
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "HPATCH_RUNTIME_DIR" && k != "XDG_RUNTIME_DIR" && k != "TMPDIR" && k != "CODEX_THREAD_ID" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TMPDIR="+shared, "CODEX_THREAD_ID=victim")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	refused(t, result{stdout.String(), stderr.String(), exitCode(err)}, 126, "runtime root "+root+" is owned by uid "+strconv.Itoa(attacker.UID))
}
