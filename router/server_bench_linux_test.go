//go:build unix

package router_test

import (
	"bytes"
	"crypto/x509"
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

	"hpatch-router/internal/testenv"
	"hpatch-router/plugins/registry"
	"hpatch-router/router"
	"hpatch-router/router/access"
)

// latencyTarget is one proxy under measurement in front of the shared
// upstream.
type latencyTarget struct {
	name  string
	front *httptest.Server
}

// benchUpstream serves body as an event stream, flushing after every
// frame as the model API does. With tls it listens with TLS and offers
// HTTP/2, as the real upstream (https://chatgpt.com) does. Every response
// gets its own call ids (each call_bench becomes call_bench_<n>), as the
// model's do: the router retains each shell call's script under its call
// id, and a repeated id would be refused by the store, a cheaper path than
// a real response takes.
func benchUpstream(body string, tls bool) *httptest.Server {
	frames := strings.SplitAfter(body, "\n\n")
	var responses atomic.Int64
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		id := fmt.Sprint("call_bench_", responses.Add(1))
		for _, fr := range frames {
			io.WriteString(w, strings.ReplaceAll(fr, "call_bench", id))
			f.Flush()
		}
	}))
	if tls {
		up.EnableHTTP2 = true
		up.StartTLS()
	} else {
		up.Start()
	}
	return up
}

// benchTransport is the upstream client both proxies use: the router's
// default settings (a clone of http.DefaultTransport, no transparent
// compression, 64 idle connections per host) trusting the upstream's
// certificate when it has one.
func benchTransport(up *httptest.Server) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	t.MaxIdleConnsPerHost = 64
	if c := up.Certificate(); c != nil {
		pool := x509.NewCertPool()
		pool.AddCert(c)
		t.TLSClientConfig.RootCAs = pool
	}
	return t
}

func reverseProxy(upstream string, t http.RoundTripper) http.Handler {
	u, _ := url.Parse(upstream)
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.URL.Path = strings.TrimRight(u.Path, "/") + strings.TrimPrefix(pr.In.URL.Path, "/v1")
			pr.Out.URL.RawPath = ""
		},
		Transport:     t,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
}

// guarded serves h behind package access's Guard, as serve does: the
// connection's owner is looked up in the kernel once per connection and
// every request's Host is checked.
func guarded(h http.Handler) *httptest.Server {
	g := access.New(access.Logger(slog.New(slog.DiscardHandler)))
	s := httptest.NewUnstartedServer(g.Wrap(h))
	s.Config.ConnContext = g.ConnContext
	s.Start()
	return s
}

// BenchmarkLatency measures time to first byte and to the end of the
// stream through the router (behind the access Guard and with the worker
// runtime and retained-script store, as serve runs it)
// and through a plain httputil.ReverseProxy, against the same in-process
// upstream and with the same real Codex request body, at concurrency 1, 16
// and 64, and the process CPU per request. Codex reaches the router over
// plain HTTP on loopback and the router reaches the model API over TLS
// (HTTP/2): upstream=tls is that path; upstream=http leaves TLS out, so
// the proxies' own costs weigh more. Read the ratios with
// scripts/bench-latency.sh.
func BenchmarkLatency(b *testing.B) {
	body, err := os.ReadFile("../testdata/codex/captures/cli-lite-exec/000-post.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, scheme := range []string{"http", "tls"} {
		upstream := benchUpstream(router.BenchStream(), scheme == "tls")
		defer upstream.Close()
		u, _ := url.Parse(upstream.URL + "/base")
		hooks := serveHooks(b)
		rt, err := router.New(append(hooks, router.Upstream(u), router.StateDir(b.TempDir()),
			router.Logger(slog.New(slog.DiscardHandler)), router.Transport(benchTransport(upstream)))...)
		if err != nil {
			b.Fatal(err)
		}
		defer rt.Close()
		// The same router with five declared tools (issue 34): what
		// offering them costs a request.
		rt5, err := router.New(append(serveHooks(b), router.Upstream(u), router.StateDir(b.TempDir()), router.Tools(fiveTools(b)),
			router.Logger(slog.New(slog.DiscardHandler)), router.Transport(benchTransport(upstream)))...)
		if err != nil {
			b.Fatal(err)
		}
		defer rt5.Close()
		targets := []latencyTarget{
			{"reverseproxy", httptest.NewServer(reverseProxy(upstream.URL+"/base", benchTransport(upstream)))},
			{"router", guarded(rt)},
			{"router-5tools", guarded(rt5)},
		}
		defer func() {
			for _, t := range targets {
				t.front.Close()
			}
		}()
		for _, conc := range []int{1, 16, 64} {
			for _, t := range targets {
				b.Run(fmt.Sprintf("upstream=%s/proxy=%s/c=%d", scheme, t.name, conc), func(b *testing.B) {
					runLatency(b, t.front.URL+"/v1/responses", body, conc)
				})
			}
		}
	}
}

// fiveTools is a tools directory declaring five tools, the shipped
// examples among them (two with grammars), loaded as serve loads it.
func fiveTools(b *testing.B) *registry.Registry {
	dir := b.TempDir()
	for _, name := range []string{"sql.toml", "python.toml", "gotest.toml", "gotest.lark"} {
		data, err := os.ReadFile("../plugins/examples/" + name)
		if err == nil {
			err = os.WriteFile(dir+"/"+name, data, 0o600)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	more := "[[tool]]\nname = \"jq\"\ndescription = \"Run a jq filter on ./data.json. Input: the filter.\"\nrun = [\"jq\", \"-f\"]\n" +
		"[[tool]]\nname = \"calc\"\ndescription = \"Add integers, e.g. 2+3.\"\nrun = [\"bc\"]\ninput = \"stdin\"\nformat = { type = \"grammar\", syntax = \"regex\", definition = \"[0-9]+(\\\\+[0-9]+)*\" }\n"
	if err := os.WriteFile(dir+"/more.toml", []byte(more), 0o600); err != nil {
		b.Fatal(err)
	}
	reg := registry.Open(dir, registry.LoadOptions{}, slog.New(slog.DiscardHandler), nil)
	if n := reg.Current().Len(); n != 5 {
		b.Fatalf("%d tools loaded, want 5: %v", n, reg.Status().Problems)
	}
	return reg
}

// serveHooks wires the worker runtime and the retained-script store on a
// fresh runtime root (benchRuntime), as serve does by default (buildHooks
// in cmd/hpatch-router): the stream's shell call then prepares the
// thread's runtime and retains its #!python3 script on every response,
// which is part of what a request costs.
// HPATCH_BENCH_NO_HOOKS=1 leaves both out, to measure the proxy alone.
func serveHooks(b *testing.B) []router.Option {
	if os.Getenv("HPATCH_BENCH_NO_HOOKS") != "" {
		return nil
	}
	wr, store := benchRuntime(b)
	return []router.Option{router.WithRuntime(wr), router.WithScripts(store)}
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
	cpuStart := testenv.CPUTime()
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
	b.ReportMetric(float64((testenv.CPUTime()-cpuStart).Microseconds())/float64(n), "proc-cpu-µs")
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
