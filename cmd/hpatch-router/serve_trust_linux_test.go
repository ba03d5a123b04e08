package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hpatch-router/ident"
	"hpatch-router/internal/testuser"
	"hpatch-router/router"
	"hpatch-router/router/access"
	"hpatch-router/router/access/accesstest"
	"hpatch-router/router/routertest"
	"hpatch-router/worker"
)

// trustServe is serve (hpatch mode, dashboard on) in front of a scripted
// upstream whose every answer is a retained python3 shell call.
type trustServe struct {
	cfg  *serveConfig
	up   *routertest.Upstream
	base string // http://127.0.0.1:PORT
	body []byte // a real Codex request
}

const victimThread = "019b0000-0000-7000-8000-00000000beef"

func startTrustServe(t *testing.T) *trustServe {
	t.Helper()
	up := routertest.NewUpstream(t, routertest.Scenario{Default: &routertest.Step{
		CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_1",
			Input: "#!/usr/bin/env python3\nprint('victim')\n"}}})
	u, _ := url.Parse(up.URL())
	body, err := os.ReadFile("../../testdata/codex/captures/cli-lite-exec/000-post.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &serveConfig{
		listen: "127.0.0.1:0", upstream: u, mode: router.ModeHPatch,
		runtimeDir: filepath.Join(t.TempDir(), "runtime"), stateDir: filepath.Join(t.TempDir(), "state"),
		responseStartTimeout: time.Minute, streamIdleTimeout: time.Minute,
		maxRequestBody: 1 << 20, shutdownGrace: time.Second,
		dashboard: dashboardFlags{enabled: true},
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, slog.New(slog.DiscardHandler), func(a string) { addrc <- a }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case a := <-addrc:
		return &trustServe{cfg: cfg, up: up, base: "http://" + a, body: body}
	case err := <-done:
		t.Fatalf("serve: %v", err)
	}
	return nil
}

// routes is one request to every route serve answers.
func (s *trustServe) routes() []accesstest.Request {
	var reqs []accesstest.Request
	for _, r := range []struct{ method, path string }{
		{"POST", "/v1/responses"}, {"POST", "/v1/responses/compact"}, {"GET", "/v1/models"},
		{"GET", "/metrics"}, {"GET", "/healthz"}, {"GET", "/"}, {"GET", "/events"}, {"GET", "/api/summary"},
	} {
		req := accesstest.Request{Method: r.method, URL: s.base + r.path, Header: map[string]string{"Thread-Id": victimThread}}
		if r.method == "POST" {
			req.Body = s.body
			req.Header["Content-Type"] = "application/json"
		}
		reqs = append(reqs, req)
	}
	return reqs
}

// created lists what exists for the thread: its runtime directory and its
// replay journal.
func (s *trustServe) created() []string {
	var out []string
	for _, p := range []string{
		filepath.Join(s.cfg.runtimeDir, ident.ThreadDirName(victimThread)),
		filepath.Join(s.cfg.stateDir, victimThread+".replay.jsonl"),
	} {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func (s *trustServe) summary(t *testing.T) (calls, rejections int) {
	t.Helper()
	resp, err := http.Get(s.base + "/api/summary")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sum struct {
		Totals struct{ Calls, Rejections int }
	}
	if err := json.NewDecoder(resp.Body).Decode(&sum); err != nil || resp.StatusCode != 200 {
		t.Fatalf("summary %d: %v", resp.StatusCode, err)
	}
	return sum.Totals.Calls, sum.Totals.Rejections
}

// TestServeCrossUser (issue 13, attack 1): another local user who knows the
// victim's thread id gets 403 on every route; nothing reaches the upstream
// and nothing is created (no thread directory, no journal, no dashboard
// entry). The same requests from the router's own user work.
func TestServeCrossUser(t *testing.T) {
	other := testuser.New(t, "/usr/sbin/nologin")
	s := startTrustServe(t)
	reqs := s.routes()
	for i, resp := range accesstest.Do(t, other, reqs...) {
		if resp.Err != "" {
			t.Fatalf("%s %s: %s", reqs[i].Method, reqs[i].URL, resp.Err)
		}
		accesstest.WantRefusal(t, reqs[i].Method+" "+reqs[i].URL, resp.Status, resp.Body, access.CodePeerNotOwner)
	}
	if n := len(s.up.Requests()); n != 0 {
		t.Fatalf("%d requests of another user reached the upstream", n)
	}
	if c := s.created(); len(c) != 0 {
		t.Fatalf("another user's requests created %v", c)
	}
	if calls, rejs := s.summary(t); calls != 0 || rejs != 0 {
		t.Fatalf("dashboard shows %d calls, %d rejections from another user", calls, rejs)
	}

	// The owner, same requests.
	req, _ := http.NewRequest("POST", s.base+"/v1/responses", bytes.NewReader(s.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Thread-Id", victimThread)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(out), `"name":"exec"`) {
		t.Fatalf("owner: %d %.300s", resp.StatusCode, out)
	}
	if c := s.created(); len(c) != 2 {
		t.Fatalf("owner's request created %v, want the thread directory and the journal", c)
	}
	if calls, _ := s.summary(t); calls != 1 {
		t.Fatalf("dashboard shows %d calls after the owner's one", calls)
	}
}

// TestServeRefusesRebindingHost (issue 13, attack 2): a request of the
// router's own user (a browser page) with a name that is not loopback as
// Host gets 403 on every route and reaches nothing.
func TestServeRefusesRebindingHost(t *testing.T) {
	s := startTrustServe(t)
	// The timeout ends an /events stream that was wrongly served.
	client := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	for _, host := range []string{"rebind.evil.example", "rebind.evil.example:8080", "localhost.evil.example"} {
		for _, r := range s.routes() {
			req, _ := http.NewRequest(r.Method, r.URL, bytes.NewReader(r.Body))
			req.Host = host
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			accesstest.WantRefusal(t, "Host "+host+" "+r.Method+" "+r.URL, resp.StatusCode, body, access.CodeHostNotAllowed)
		}
	}
	if n := len(s.up.Requests()); n != 0 {
		t.Fatalf("%d rebinding requests reached the upstream", n)
	}
	if c := s.created(); len(c) != 0 {
		t.Fatalf("rebinding requests created %v", c)
	}
}

// TestServeIdleThreadsHoldNoDescriptors (issue 13, bounds): 300 thread
// ids, each with a retained python3 call (a thread directory, retained
// script and replay journal each), leave the process's open descriptors
// where they were once the threads are idle — on main they left about two
// directory descriptors per thread (for the scripts' hour) plus a journal
// handle per cached thread. The runtime may hold the most recently
// verified thread directories open (a fixed bound, worker.MaxHeldThreads,
// whatever the number of threads): which of them it holds depends on how
// long a request took, so the bound is what is asserted.
func TestServeIdleThreadsHoldNoDescriptors(t *testing.T) {
	s := startTrustServe(t)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	post := func(thread string) {
		req, _ := http.NewRequest("POST", s.base+"/v1/responses", bytes.NewReader(s.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Thread-Id", thread)
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(out), `\"retained\"`) {
			t.Errorf("thread %s: %d %.200s", thread, resp.StatusCode, out)
		}
	}
	post("fd-warmup") // connections, the journal directory, the snapshot
	before := openFDs(t)
	const threads = 300
	work := make(chan string)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for th := range work {
				post(th)
			}
		}()
	}
	for i := range threads {
		work <- "fd-thread-" + strconv.Itoa(i)
	}
	close(work)
	wg.Wait()
	if entries, _ := os.ReadDir(s.cfg.runtimeDir); len(entries) < threads {
		t.Fatalf("%d entries in the runtime root, want the %d thread directories", len(entries), threads)
	}
	// Journal handles are closed by the maintenance pass after the one that
	// fsyncs them (about a second apart).
	limit := before + worker.MaxHeldThreads
	after := openFDs(t)
	for deadline := time.Now().Add(30 * time.Second); after > limit && time.Now().Before(deadline); after = openFDs(t) {
		time.Sleep(100 * time.Millisecond)
	}
	if after > limit {
		t.Fatalf("%d descriptors open after %d idle threads, %d before (at most %d thread directories may stay held)",
			after, threads, before, worker.MaxHeldThreads)
	}
	t.Logf("file and directory descriptors: %d before, %d after %d idle threads", before, after, threads)
}

// openFDs counts this process's descriptors of files and directories.
// Sockets are left out: the test's client, the router and the in-process
// upstream keep idle HTTP connections, both ends in this process.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && !strings.HasPrefix(target, "socket:") {
			n++
		}
	}
	return n
}
