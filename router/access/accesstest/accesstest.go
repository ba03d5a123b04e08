package accesstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/internal/testuser"
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

// Do sends reqs in order, each on its own connection, from a process
// running as u, and returns the responses.
func Do(t testing.TB, u testuser.User, reqs ...Request) []Response {
	t.Helper()
	exe := clientCopy(t, u)
	in, err := json.Marshal(reqs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = u.Env(clientEnv+"=1", "PATH=/usr/bin:/bin")
	cmd.Dir = u.Home
	cmd.Stdin = bytes.NewReader(in)
	cmd.SysProcAttr = u.SysProcAttr()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client as %s (uid %d): %v: %s", u.Name, u.UID, err, stderr.Bytes())
	}
	var resps []Response
	if err := json.Unmarshal(out, &resps); err != nil || len(resps) != len(reqs) {
		t.Fatalf("client as %s answered %q (%v)", u.Name, out, err)
	}
	return resps
}

// clientCopy copies the test binary into u's own directory: the build
// directory is private to the user who ran go test.
func clientCopy(t testing.TB, u testuser.User) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(u.Dir(t, "accesstest"), "client")
	if err := os.WriteFile(exe, data, 0o700); err != nil {
		t.Fatal(err)
	}
	u.Own(t, exe)
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
