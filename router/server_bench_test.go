//go:build unix

package router

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchStream is a realistic model turn: reasoning, a streamed message and
// a streamed shell call, then response.completed.
func benchStream() string {
	s := &stream{}
	s.created()
	s.reasoning("rs_1")
	s.event("response.output_item.added", `"output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}`)
	for range 40 {
		s.event("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"some words of the answer "`)
	}
	s.idx = 2
	s.call("ctc_1", "call_bench", "shell", "functions", "#!python3\nimport sys\nfor i in range(3):\n    print(i, sys.argv)\n", 12)
	s.completed()
	return s.String()
}

// latencyTarget is one proxy under measurement in front of the shared
// upstream.
type latencyTarget struct {
	name  string
	front *httptest.Server
}

func benchUpstream(body string) *httptest.Server {
	frames := strings.SplitAfter(body, "\n\n")
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for _, fr := range frames {
			io.WriteString(w, fr)
			f.Flush()
		}
	}))
}

func reverseProxy(upstream string) http.Handler {
	u, _ := url.Parse(upstream)
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.URL.Path = strings.TrimRight(u.Path, "/") + strings.TrimPrefix(pr.In.URL.Path, "/v1")
			pr.Out.URL.RawPath = ""
		},
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
}

// BenchmarkLatency measures time to first byte and to the end of the
// stream through the router and through a plain httputil.ReverseProxy,
// against the same in-process upstream and with the same real Codex
// request body, at concurrency 1 and 64, and the process CPU per request.
// Read the ratios with scripts/bench-latency.sh.
func BenchmarkLatency(b *testing.B) {
	body, err := os.ReadFile("../testdata/codex/captures/cli-lite-exec/000-post.json")
	if err != nil {
		b.Fatal(err)
	}
	upstream := benchUpstream(benchStream())
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL + "/base")
	rt, err := New(Upstream(u), StateDir(b.TempDir()), Logger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	targets := []latencyTarget{
		{"reverseproxy", httptest.NewServer(reverseProxy(upstream.URL + "/base"))},
		{"router", httptest.NewServer(rt)},
	}
	defer func() {
		for _, t := range targets {
			t.front.Close()
		}
	}()
	for _, conc := range []int{1, 64} {
		for _, t := range targets {
			b.Run(fmt.Sprintf("proxy=%s/c=%d", t.name, conc), func(b *testing.B) {
				runLatency(b, t.front.URL+"/v1/responses", body, conc)
			})
		}
	}
}

func runLatency(b *testing.B, target string, body []byte, conc int) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc * 2, DisableCompression: true}}
	defer client.CloseIdleConnections()
	var (
		mu         sync.Mutex
		ttfb, full []time.Duration
		next       atomic.Int64
		wg         sync.WaitGroup
		thread     atomic.Int64
	)
	n := int64(b.N)
	b.ResetTimer()
	cpuStart := cpuTime()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One conversation (thread) per concurrent client, as in Codex.
			tid := fmt.Sprint("bench-", thread.Add(1))
			buf := make([]byte, 32<<10)
			for next.Add(1) <= n {
				req, _ := http.NewRequest("POST", target, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "text/event-stream")
				req.Header.Set("Thread-Id", tid)
				start := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				var first time.Duration
				for {
					k, err := resp.Body.Read(buf)
					if k > 0 && first == 0 {
						first = time.Since(start)
					}
					if err != nil {
						break
					}
				}
				total := time.Since(start)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
				mu.Lock()
				ttfb, full = append(ttfb, first), append(full, total)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	// CPU of the whole process (client, proxy and upstream) per request:
	// the same client and upstream run for both proxies, so the difference
	// is the proxy's own CPU, which the machine's load does not blur as it
	// does latency.
	b.ReportMetric(float64((cpuTime()-cpuStart).Microseconds())/float64(n), "proc-cpu-µs")
	report := func(name string, d []time.Duration) {
		slices.Sort(d)
		if len(d) == 0 {
			return
		}
		b.ReportMetric(float64(d[len(d)/2].Microseconds()), name+"-p50-µs")
		b.ReportMetric(float64(d[min(len(d)-1, len(d)*99/100)].Microseconds()), name+"-p99-µs")
	}
	report("ttfb", ttfb)
	report("full", full)
}
