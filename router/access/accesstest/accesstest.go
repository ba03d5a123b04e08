// Package accesstest sends HTTP requests to a router as another local
// user, for the cross-user tests of the packages that wire package access.
//
// The client is a copy of the running test binary, started with a
// throwaway uid (SysProcAttr.Credential; only root can do that, which CI
// is). The test package's TestMain must call Main first, so that copy acts
// as the client instead of running the tests:
//
//	func TestMain(m *testing.M) {
//		accesstest.Main()
//		os.Exit(m.Run())
//	}
package accesstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
)

// clientEnv marks the copy of the test binary that acts as the client.
const clientEnv = "HPATCH_ACCESSTEST_CLIENT"

// Request is one HTTP request the other user sends.
type Request struct {
	Method string
	URL    string
	Host   string            // the Host header; "" keeps the URL's
	Header map[string]string // extra headers
	Body   []byte
}

// Response is what the other user got: Status is 0 and Err is set when no
// response came (e.g. the connection was refused or closed).
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	Err    string
}

// Main acts as the client when the process is the copy Do started, and
// returns otherwise. Call it first in TestMain.
func Main() {
	if os.Getenv(clientEnv) != "1" {
		return
	}
	var reqs []Request
	out := json.NewEncoder(os.Stdout)
	if err := json.NewDecoder(os.Stdin).Decode(&reqs); err != nil {
		fmt.Fprintln(os.Stderr, "accesstest client:", err)
		os.Exit(2)
	}
	// Refusals are immediate; the timeout ends a stream (/events) that was
	// wrongly served, so a broken guard fails the test instead of hanging it.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var resps []Response
	for _, r := range reqs {
		resps = append(resps, send(client, r))
	}
	_ = out.Encode(resps)
	os.Exit(0)
}

func send(client *http.Client, r Request) Response {
	req, err := http.NewRequest(r.Method, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return Response{Err: err.Error()}
	}
	if r.Host != "" {
		req.Host = r.Host
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return Response{Err: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	out := Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if err != nil {
		out.Err = err.Error()
	}
	return out
}

// UID returns a uid no account uses, for a throwaway client. Switching to
// it needs root (CI runs as root): otherwise the test skips, or fails
// under CI=true (testenv.Missing).
func UID(t testing.TB) uint32 {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Missing(t, "cross-user tests need root to run a client as a throwaway uid")
	}
	for uid := 47000; uid < 48000; uid++ {
		if _, err := user.LookupId(strconv.Itoa(uid)); err != nil {
			return uint32(uid)
		}
	}
	t.Fatal("no free uid in 47000..47999 for a throwaway client")
	return 0
}

// Do sends reqs in order, each on its own connection, from a process
// running as uid (and gid uid, no supplementary groups), and returns the
// responses.
func Do(t testing.TB, uid uint32, reqs ...Request) []Response {
	t.Helper()
	exe := clientCopy(t)
	in, err := json.Marshal(reqs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = []string{clientEnv + "=1", "PATH=/usr/bin:/bin", "HOME=/", "TMPDIR=/tmp"}
	cmd.Dir = "/"
	cmd.Stdin = bytes.NewReader(in)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client as uid %d: %v: %s", uid, err, stderr.Bytes())
	}
	var resps []Response
	if err := json.Unmarshal(out, &resps); err != nil || len(resps) != len(reqs) {
		t.Fatalf("client as uid %d answered %q (%v)", uid, out, err)
	}
	return resps
}

// clientCopy copies the test binary where another user can run it: the
// build directory is private to the user who ran go test.
func clientCopy(t testing.TB) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "accesstest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "client")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(exe, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return exe
}

// WantRefusal fails the test unless status and body are a 403 refusal
// with code in the OpenAI error shape ("permission_error", message
// starting "hpatch-router: ").
func WantRefusal(t testing.TB, what string, status int, body []byte, code string) {
	t.Helper()
	var e struct {
		Error struct{ Message, Type, Code string }
	}
	if status != http.StatusForbidden || json.Unmarshal(body, &e) != nil || e.Error.Code != code ||
		e.Error.Type != "permission_error" || !strings.HasPrefix(e.Error.Message, "hpatch-router: ") {
		t.Errorf("%s: %d %.200s, want 403 %s in the OpenAI error shape", what, status, body, code)
	}
}
