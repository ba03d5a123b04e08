package dashboard

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/router"
	"hpatch-router/router/routertest"
)

// codexSession is the router in front of a scripted upstream, with the
// dashboard observing it and mounted on the same listener, as serve does.
type codexSession struct {
	t     *testing.T
	dash  *Dashboard
	base  string // http://127.0.0.1:PORT
	body  []byte // a real Codex request (the cli-lite-exec capture)
	posts int
}

const sessionThread = "019b0000-0000-7000-8000-0000000d4b0a"

func newCodexSession(t *testing.T, steps []routertest.Step) *codexSession {
	t.Helper()
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: steps})
	u, err := url.Parse(up.URL())
	if err != nil {
		t.Fatal(err)
	}
	d := New(KeepAlive(500 * time.Millisecond))
	rt, err := router.New(router.Upstream(u), router.WithObserver(d), router.Logger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	dh := d.Handler()
	mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Serves(r.Method, r.URL.Path) {
			dh.ServeHTTP(w, r)
			return
		}
		rt.ServeHTTP(w, r)
	})
	body, err := os.ReadFile("../../testdata/codex/captures/cli-lite-exec/000-post.json")
	if err != nil {
		t.Fatal(err)
	}
	return &codexSession{t: t, dash: d, base: serveLoopback(t, mux), body: body}
}

// turn sends one Codex request through the router and reads the rewritten
// stream to its end, as Codex does.
func (s *codexSession) turn(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/v1/responses", bytes.NewReader(s.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Thread-Id", sessionThread)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err == nil && !strings.Contains(string(out), "response.completed") {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// TestBrowserRouterSessionLive drives the dashboard mounted on a real
// router while a scripted Codex session runs: one turn before the page
// loads, two after (a python3 call and a rejected selector), then the
// router stops. The page must show the live call that arrived over SSE.
func TestBrowserRouterSessionLive(t *testing.T) {
	bin := needChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := func(mode ...string) []byte {
		s := newCodexSession(t, []routertest.Step{
			{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_before_page",
				Input: "ls -la\n"}},
			{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_router_live",
				Input: "#!/usr/bin/env python3\nimport sys\nprint(sys.version)\n"}, Deltas: 4},
			{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_rejected",
				Input: "#!/usr/bin/env -S\n"}},
		})
		if err := s.turn(ctx); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() {
			for s.dash.subscriberCount() == 0 && ctx.Err() == nil {
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(150 * time.Millisecond)
			err := s.turn(ctx)
			if err == nil {
				err = s.turn(ctx)
			}
			time.Sleep(300 * time.Millisecond)
			s.dash.Close() // the router stops; the page keeps what it got
			errc <- err
		}()
		out := chromium(ctx, t, bin, s.base+"/", append([]string{"--virtual-time-budget=3000"}, mode...)...)
		if err := <-errc; err != nil {
			t.Fatalf("session turn: %v", err)
		}
		return out
	}

	dom := string(run("--dump-dom"))
	for _, want := range []string{
		`data-call-id="call_router_live"`, `data-call-id="call_before_page"`, ">python3<", ">worker<", ">direct<",
		"env selector names no executable",
	} {
		if !strings.Contains(dom, want) {
			t.Fatalf("DOM lacks %q:\n%s", want, tail(dom, 4000))
		}
	}
	if strings.Index(dom, `data-call-id="call_router_live"`) > strings.Index(dom, `data-call-id="call_before_page"`) {
		t.Fatal("the live call is not listed first")
	}
	if strings.Contains(dom, "sys.version") {
		t.Fatal("a script body reached the page")
	}

	shot := filepath.Join(t.TempDir(), "dashboard-router-session.png")
	run("--screenshot=" + shot)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("no screenshot at %s: %v", shot, err)
	}
	if dir := os.Getenv("HPATCH_ARTIFACTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, filepath.Base(shot)), png, 0o644)
	}
	t.Logf("dashboard screenshot of the router session (%d bytes): %s", len(png), shot)
}
