package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestE2EZstdPassthrough: from 0.171.0 Codex asks for `accept-encoding:
// zstd,gzip`. A request the router does not rewrite (router in
// --mode passthrough, or a request with no Code Mode owner) keeps that
// header, and an upstream that answers with a zstd body must reach Codex
// byte for byte with its Content-Encoding, so that Codex decodes it and
// shows the message. The body is fixed zstd bytes
// (testdata/e2e/zstd-message.sse.zst, made with `zstd -19` from
// zstd-message.sse), so no zstd library is needed. Runs the newest Codex of
// the version matrix.
func TestE2EZstdPassthrough(t *testing.T) {
	versions := codexVersions(t)
	codex := versionedCodex(t, versions[len(versions)-1])
	zst, err := os.ReadFile(repoPath(t, "testdata", "e2e", "zstd-message.sse.zst"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		cfg   codexConfig
		extra []string
	}{
		{"mode passthrough", configCatalog, []string{"--mode", "passthrough"}},
		{"request without an owner", configGPT55, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var asked []string
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
					http.NotFound(w, r)
					return
				}
				mu.Lock()
				asked = append(asked, r.Header.Get("Accept-Encoding"))
				mu.Unlock()
				if !strings.Contains(r.Header.Get("Accept-Encoding"), "zstd") {
					http.Error(w, "this test's upstream answers only requests that accept zstd", http.StatusNotAcceptable)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				w.Header().Set("Content-Encoding", "zstd")
				w.Write(zst)
			}))
			t.Cleanup(up.Close)
			bin := e2eBins.binDir(t)
			rp := startRouter(t, routerSpec{binDir: bin, upstream: up.URL + "/v1", runtimeDir: t.TempDir(), extra: c.extra})
			home := writeCodexHome(t, c.cfg, rp.URL+"/v1")
			run := runCodex(t, codex, home, bin, rp.RuntimeDir, t.TempDir(), "say it")
			mu.Lock()
			defer mu.Unlock()
			if len(asked) == 0 {
				t.Fatalf("no request reached the upstream:\n%s", run.Output)
			}
			for _, ae := range asked {
				if !strings.Contains(ae, "zstd") {
					t.Errorf("the upstream got Accept-Encoding %q; the router must forward Codex's zstd,gzip", ae)
				}
			}
			if run.ExitCode != 0 || !strings.Contains(run.Output, "zstd passthrough ok") {
				t.Fatalf("codex exit %d without the zstd-encoded message:\n%s", run.ExitCode, run.Output)
			}
			if !bytes.HasPrefix(zst, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
				t.Fatal("testdata/e2e/zstd-message.sse.zst is not a zstd frame")
			}
		})
	}
}
