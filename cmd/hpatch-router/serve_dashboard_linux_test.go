package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"hpatch-router/router"
)

func TestWithDashboardRoutesOnlyDashboardPaths(t *testing.T) {
	rt := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "router") })
	d, _ := newServeDashboard(dashboardFlags{enabled: true}, slog.New(slog.DiscardHandler), nil)
	h := withDashboard(rt, d)
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/", "<!doctype html>"},
		{"GET", "/api/summary", `"totals"`},
		{"GET", "/healthz", "router"},
		{"GET", "/metrics", "router"},
		{"GET", "/v1/models", "router"},
		{"POST", "/", "router"},
	} {
		req := httptest.NewRequest(c.method, c.path, nil)
		req.Host = "127.0.0.1:8080"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%s %s: %q", c.method, c.path, rec.Body.String()[:min(60, rec.Body.Len())])
		}
	}
	if d, opts := newServeDashboard(dashboardFlags{}, slog.New(slog.DiscardHandler), nil); d != nil || opts != nil {
		t.Fatal("--dashboard=false still built a dashboard")
	}
	if withDashboard(rt, nil) == nil {
		t.Fatal("nil dashboard lost the router")
	}
}

func TestServeDashboardFlags(t *testing.T) {
	s := stdio{nil, io.Discard, io.Discard}
	cfg, _ := parseServeFlags(nil, fakeEnv(nil), s)
	if !cfg.dashboard.enabled || cfg.dashboard.bodies {
		t.Fatalf("defaults %+v", cfg.dashboard)
	}
	cfg, _ = parseServeFlags([]string{"--dashboard=false", "--dashboard-bodies"}, fakeEnv(nil), s)
	if cfg.dashboard.enabled || !cfg.dashboard.bodies {
		t.Fatalf("flags %+v", cfg.dashboard)
	}
	var out bytes.Buffer
	parseServeFlags([]string{"--help"}, fakeEnv(nil), stdio{nil, &out, io.Discard})
	for _, f := range []string{"--dashboard", "serve the live dashboard", "--dashboard-bodies", "bodies are never shown"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("--help does not document %s", f)
		}
	}
}

// serve mounts the dashboard on its listener, and an open /events stream
// does not hold up shutdown.
func TestServeMountsDashboard(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		u, _ := url.Parse(upstream.URL)
		cfg := &serveConfig{
			listen: "127.0.0.1:0", upstream: u, mode: router.ModePassthrough,
			responseStartTimeout: time.Minute, streamIdleTimeout: time.Minute,
			maxRequestBody: 1 << 20, shutdownGrace: time.Hour, // a held stream would hold shutdown for the whole grace
			dashboard: dashboardFlags{enabled: enabled},
		}
		ctx, cancel := context.WithCancel(context.Background())
		addrc := make(chan string, 1)
		done := make(chan error, 1)
		go func() { done <- serve(ctx, cfg, slog.New(slog.DiscardHandler), func(a string) { addrc <- a }) }()
		addr := <-addrc
		client := &http.Client{Transport: &http.Transport{}}
		resp, err := client.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.StatusCode == 200 && strings.Contains(string(page), "EventSource"); got != enabled {
			t.Fatalf("dashboard=%v: GET / %d", enabled, resp.StatusCode)
		}
		if enabled {
			events, err := client.Get("http://" + addr + "/events")
			if err != nil || events.StatusCode != 200 {
				t.Fatalf("/events: %v", err)
			}
			defer events.Body.Close()
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(2 * time.Minute): // far below the grace: only a held stream gets here
			t.Fatal("an open /events stream held up shutdown")
		}
		client.CloseIdleConnections()
		upstream.Close()
	}
}
