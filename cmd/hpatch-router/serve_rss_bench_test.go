//go:build linux

package main

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rssStreams is how many responses BenchmarkServeStreamsRSS holds open at
// once: the bound is for 64 concurrent streams.
const rssStreams = 64

// BenchmarkServeStreamsRSS measures the router's memory with 64 streams
// open at once. It runs the router binary as a user does (`serve`, with
// the access Guard, the worker runtime, the retained-script store and the
// dashboard), in its own process, so the client and the fake upstream in
// this test process are not counted. The upstream listens with TLS and
// HTTP/2, as the model API does; each of the 64 clients (one thread each)
// sends the real Codex request and reads a streamed turn whose shell call
// the router rewrites, and the upstream holds every stream in the middle
// of that call until all 64 are open. The metrics are the kernel's own
// accounting of the router process: its resident set while the 64 streams
// are open (VmRSS) and its peak over the whole run (VmHWM, the high-water
// mark, which a short spike between samples cannot escape).
//
//	HPATCH_ROUTER_BIN=path/to/hpatch-router go test -run '^$' -bench ServeStreamsRSS ./cmd/hpatch-router
//
// Without HPATCH_ROUTER_BIN the binary is built first (scripts/bench-latency.sh
// builds it once and sets it).
func BenchmarkServeStreamsRSS(b *testing.B) {
	body, err := os.ReadFile("../../testdata/codex/captures/cli-lite-exec/000-post.json")
	if err != nil {
		b.Fatal(err)
	}
	bin := routerBinary(b)
	up := newHoldingUpstream(rssStreams)
	defer up.close()
	dir := b.TempDir()
	pemFile := filepath.Join(dir, "upstream.pem")
	if err := os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: up.srv.Certificate().Raw}), 0o600); err != nil {
		b.Fatal(err)
	}
	addr := freeLoopbackAddr(b)
	cmd := exec.Command(bin, "serve", "--listen", addr, "--upstream", up.srv.URL+"/codex",
		"--runtime-dir", filepath.Join(dir, "run"), "--state-dir", filepath.Join(dir, "state"), "--log-level", "warn")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir, "XDG_RUNTIME_DIR=" + dir,
		"XDG_STATE_HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "SSL_CERT_FILE=" + pemFile}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: rssStreams, DisableCompression: true}}
	defer client.CloseIdleConnections()
	waitHealthy(b, client, "http://"+addr, &logs)
	var openRSS int64
	b.ResetTimer()
	for range b.N {
		release := up.arm()
		var wg sync.WaitGroup
		var failed atomic.Value
		for i := range rssStreams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := oneStream(client, "http://"+addr+"/v1/responses", body, "rss-"+strconv.Itoa(i)); err != nil {
					failed.Store(err)
				}
			}()
		}
		select {
		case <-up.allOpen:
		case <-time.After(30 * time.Second):
			b.Fatalf("only %d of %d streams reached the upstream; router log:\n%s", up.opened.Load(), rssStreams, logs.String())
		}
		openRSS = max(openRSS, procStatusKB(b, cmd.Process.Pid, "VmRSS"))
		release()
		wg.Wait()
		if err, _ := failed.Load().(error); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(openRSS)/1024, "rss-64-open-MB")
	b.ReportMetric(float64(procStatusKB(b, cmd.Process.Pid, "VmHWM"))/1024, "peak-rss-MB")
}

// routerBinary is $HPATCH_ROUTER_BIN, or this command built into a
// temporary directory.
func routerBinary(b *testing.B) string {
	if p := os.Getenv("HPATCH_ROUTER_BIN"); p != "" {
		return p
	}
	p := filepath.Join(b.TempDir(), "hpatch-router")
	build := exec.Command("go", "build", "-o", p, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return p
}

func freeLoopbackAddr(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitHealthy(b *testing.B, client *http.Client, base string, logs *bytes.Buffer) {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err := client.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
	}
	b.Fatalf("the router did not answer /healthz; its log:\n%s", logs.String())
}

// oneStream sends one request of thread and reads the whole streamed
// answer, which must carry the router's exec carrier for the shell call.
func oneStream(client *http.Client, target string, body []byte, thread string) error {
	req, _ := http.NewRequest("POST", target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Thread-Id", thread)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || !bytes.Contains(out, []byte(`"name":"exec"`)) || !bytes.Contains(out, []byte("response.completed")) {
		return fmt.Errorf("stream of %s: status %d, no exec carrier or no completion:\n%.400s", thread, resp.StatusCode, out)
	}
	return nil
}

// procStatusKB reads one "Name: N kB" line of /proc/PID/status.
func procStatusKB(b *testing.B, pid int, name string) int64 {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(st), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("no %s in /proc/%d/status", name, pid)
	return 0
}

// holdingUpstream streams a model turn with a shell call and stops in the
// middle of the call until all of a round's streams are open.
type holdingUpstream struct {
	srv     *httptest.Server
	want    int64
	opened  atomic.Int64
	mu      sync.Mutex
	allOpen chan struct{}
	release chan struct{}
}

func newHoldingUpstream(want int) *holdingUpstream {
	u := &holdingUpstream{want: int64(want)}
	u.srv = httptest.NewUnstartedServer(http.HandlerFunc(u.serve))
	u.srv.EnableHTTP2 = true
	u.srv.StartTLS()
	return u
}

// arm starts a round and returns the function that lets its streams end.
func (u *holdingUpstream) arm() func() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.opened.Store(0)
	u.allOpen, u.release = make(chan struct{}), make(chan struct{})
	rel := u.release
	return func() { close(rel) }
}

func (u *holdingUpstream) close() { u.srv.Close() }

func (u *holdingUpstream) serve(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	u.mu.Lock()
	allOpen, release := u.allOpen, u.release
	u.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	seq := 0
	event := func(typ, fields string) {
		fmt.Fprintf(w, "event: %s\ndata: {\"type\":%q,%s,\"sequence_number\":%d}\n\n", typ, typ, fields, seq)
		seq++
		f.Flush()
	}
	event("response.created", `"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}`)
	event("response.output_item.added", `"output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}`)
	for range 40 {
		event("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"some words of the answer "`)
	}
	event("response.output_item.done", `"output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"answer","annotations":[]}]}`)
	input := `#!python3\nimport sys\nfor i in range(3):\n    print(i, sys.argv)\n`
	call := func(in, status string) string {
		return `{"type":"custom_tool_call","id":"ctc_1","call_id":"call_rss","name":"shell","namespace":"functions","input":"` + in + `","status":"` + status + `"}`
	}
	event("response.output_item.added", `"output_index":1,"item":`+call("", "in_progress"))
	event("response.custom_tool_call_input.delta", `"item_id":"ctc_1","output_index":1,"delta":"`+input[:20]+`"`)
	if u.opened.Add(1) == u.want {
		close(allOpen)
	}
	select {
	case <-release:
	case <-r.Context().Done():
		return
	}
	event("response.custom_tool_call_input.delta", `"item_id":"ctc_1","output_index":1,"delta":"`+input[20:]+`"`)
	event("response.custom_tool_call_input.done", `"item_id":"ctc_1","output_index":1,"input":"`+input+`"`)
	event("response.output_item.done", `"output_index":1,"item":`+call(input, "completed"))
	event("response.completed", `"response":{"id":"resp_1","object":"response","status":"completed","output":[`+call(input, "completed")+`],"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}`)
}
