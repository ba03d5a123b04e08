package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWithDashboardRoutesOnlyDashboardPaths(t *testing.T) {
	rt := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "router") })
	d, _ := newServeDashboard(dashboardFlags{enabled: true}, "127.0.0.1:8080", slog.New(slog.DiscardHandler))
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
	if d, opts := newServeDashboard(dashboardFlags{}, "127.0.0.1:8080", slog.New(slog.DiscardHandler)); d != nil || opts != nil {
		t.Fatal("--dashboard=false still built a dashboard")
	}
	if withDashboard(rt, nil) == nil {
		t.Fatal("nil dashboard lost the router")
	}
}

func TestIsLoopbackListen(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:8080": true, "localhost:1": true,
		"0.0.0.0:8080": false, ":8080": false, "192.168.1.5:80": false, "bad": false,
	} {
		if got := isLoopbackListen(addr); got != want {
			t.Errorf("%s: %v", addr, got)
		}
	}
}
