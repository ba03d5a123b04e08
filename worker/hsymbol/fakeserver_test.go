//go:build linux

package hsymbol

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary is also a fake language server: started with
// fakeServerEnv set (through a link named like the real server), it speaks
// just enough LSP and records what happens to the log file the variable
// names, one line per event: "start PID", "child PID" (a sleep it leaves
// in its process group, as gopls leaves `go list`), "open URI", "change
// URI", "ask METHOD" and "exit".
const fakeServerEnv = "HSYMBOL_FAKE_SERVER_LOG"

// fakeHangEnv makes the fake server never answer definition or
// references; fakeExitEnv=N makes it exit, unanswering, when it is asked
// the N-th time; fakeStayEnv makes it stay when its input ends (most
// servers exit then, so only a signal ends one that does not).
const (
	fakeHangEnv = "HSYMBOL_FAKE_SERVER_HANG"
	fakeExitEnv = "HSYMBOL_FAKE_SERVER_EXIT_ON_ASK"
	fakeStayEnv = "HSYMBOL_FAKE_SERVER_STAY"
)

func init() {
	if log := os.Getenv(fakeServerEnv); log != "" && filepath.Base(os.Args[0]) == "gopls" {
		exitOn, _ := strconv.Atoi(os.Getenv(fakeExitEnv))
		code := fakeServerMain(log, os.Getenv(fakeHangEnv) != "", exitOn, os.Stdin, os.Stdout)
		if os.Getenv(fakeStayEnv) != "" {
			select {}
		}
		os.Exit(code)
	}
}

func fakeServerMain(log string, hang bool, exitOn int, r io.Reader, w io.Writer) int {
	record := func(format string, a ...any) {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			fmt.Fprintf(f, format+"\n", a...)
			f.Close()
		}
	}
	record("start %d", os.Getpid())
	child := exec.Command("sleep", "3600")
	if child.Start() == nil {
		record("child %d", child.Process.Pid)
	}
	write := func(v any) {
		body, _ := json.Marshal(v)
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	br := bufio.NewReader(r)
	tp := textproto.NewReader(br)
	asked := 0
	for {
		hdr, err := tp.ReadMIMEHeader()
		if err != nil {
			return 0
		}
		n, _ := strconv.Atoi(hdr.Get("Content-Length"))
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return 0
		}
		var m message
		if json.Unmarshal(body, &m) != nil {
			return 1
		}
		var p struct {
			TextDocument struct{ URI string } `json:"textDocument"`
			Position     struct{ Line int }   `json:"position"`
		}
		_ = json.Unmarshal(m.Params, &p)
		reply := func(result any) {
			write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		}
		switch m.Method {
		case "initialize":
			// A request of its own first, as gopls and pyright send.
			write(map[string]any{"jsonrpc": "2.0", "id": "cfg", "method": "workspace/configuration",
				"params": map[string]any{"items": []any{map[string]any{}}}})
			reply(map[string]any{"capabilities": map[string]any{}})
		case "textDocument/didOpen":
			record("open %s", p.TextDocument.URI)
		case "textDocument/didChange":
			record("change %s", p.TextDocument.URI)
		case "textDocument/definition", "textDocument/references":
			record("ask %s", m.Method)
			if asked++; asked == exitOn {
				return 3
			}
			if hang {
				continue
			}
			// The answer is the asked position itself.
			line := map[string]any{"line": p.Position.Line, "character": 0}
			reply([]any{map[string]any{"uri": p.TextDocument.URI, "range": map[string]any{"start": line, "end": line}}})
		case "shutdown":
			reply(nil)
		case "exit":
			record("exit")
			return 0
		}
	}
}

// fakeLog reads what the fake servers of one test recorded.
type fakeLog string

func (l fakeLog) lines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(string(l))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// pids are the process ids recorded with event ("start" or "child").
func (l fakeLog) pids(t *testing.T, event string) []int {
	var out []int
	for _, line := range l.lines(t) {
		if rest, ok := strings.CutPrefix(line, event+" "); ok {
			pid, err := strconv.Atoi(rest)
			if err != nil {
				t.Fatalf("log line %q", line)
			}
			out = append(out, pid)
		}
	}
	return out
}

func (l fakeLog) count(t *testing.T, prefix string) int {
	n := 0
	for _, line := range l.lines(t) {
		if strings.HasPrefix(line, prefix) {
			n++
		}
	}
	return n
}

// waitFor polls the log until a line starts with prefix.
func (l fakeLog) waitFor(t *testing.T, prefix string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if l.count(t, prefix) > 0 {
			return
		}
	}
	t.Fatalf("the fake server never logged %q: %q", prefix, l.lines(t))
}

// fakeServerPath is a PATH directory where gopls is this test binary.
func fakeServerPath(t *testing.T) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "gopls")); err != nil {
		t.Fatal(err)
	}
	// hsymbol wants the go command beside gopls (the real one runs it);
	// the fake never does, so a stand-in that does nothing will do.
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// gone waits until process pid has exited (gone, or a zombie left for its
// parent) and fails the test if it is still running after a minute.
func gone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if st, ok := procStat(pid); !ok || st.state == 'Z' {
			return
		}
	}
	t.Fatalf("process %d is still running", pid)
}

// running reports whether pid names a live process that is not a zombie.
func running(pid int) bool {
	st, ok := procStat(pid)
	return ok && st.state != 'Z'
}

// groupGone waits until no process of group pgid is running (zombies
// count as gone: whoever reaps them, init included, may take its time) and
// fails the test after a minute.
func groupGone(t *testing.T, pgid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if len(groupMembers(pgid)) == 0 {
			return
		}
	}
	t.Fatalf("process group %d still has %v running", pgid, groupMembers(pgid))
}

// groupMembers are the running processes of group pgid.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := procStat(pid); ok && st.state != 'Z' && st.pgrp == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// serverChildren are the running children of the test process: the
// language servers its sessions started (their own children, like gopls's
// go list, are grandchildren).
func serverChildren(t *testing.T) []int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(field); err == nil && running(pid) {
				out = append(out, pid)
			}
		}
	}
	slices.Sort(out)
	return out
}

type stat struct {
	state byte
	ppid  int
	pgrp  int
}

// procStat reads the state, parent and process group of pid.
func procStat(pid int) (stat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(string(data[i+1:])) // state ppid pgrp …
	if len(f) < 3 {
		return stat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	return stat{state: f[0][0], ppid: ppid, pgrp: pgrp}, true
}
