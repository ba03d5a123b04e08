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

// newCodexSession builds the session; bodies is --dashboard-bodies, extra
// are more router options (e.g. a retained-script store).
func newCodexSession(t *testing.T, steps []routertest.Step, bodies bool, extra ...router.Option) *codexSession {
	t.Helper()
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: steps})
	u, err := url.Parse(up.URL())
	if err != nil {
		t.Fatal(err)
	}
	d := New(KeepAlive(500*time.Millisecond), Bodies(bodies))
	opts := []router.Option{router.Upstream(u), router.WithObserver(d), router.WithObserverBodies(bodies), router.Logger(slog.New(slog.DiscardHandler))}
	rt, err := router.New(append(opts, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	mux := d.Wrap(rt)
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

// chartBarsOneSession holds when the chart has a model and a carrier bar
// for each hour the session's calls fell in: one hour, or two when the
// session straddles the top of an hour (a CI run around 09:00 saw two).
const chartBarsOneSession = `(() => {
	const carrier = document.querySelectorAll("#chart rect.bar-carrier").length;
	const model = document.querySelectorAll("#chart rect.bar-model").length;
	return carrier >= 1 && carrier <= 2 && model === carrier;
})()`

// TestBrowserRouterSessionLive drives the dashboard mounted on a real
// router while a scripted Codex session runs, over the DevTools protocol:
// one turn before the page loads; once the page shows its feed is live, two
// more turns (a python3 worker call, then a rejected selector). The new
// call must appear in the page without a reload, and a screenshot is taken
// while the feed is live.
func TestBrowserRouterSessionLive(t *testing.T) {
	bin := needChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := newCodexSession(t, []routertest.Step{
		{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_before_page",
			Input: "ls -la\n"}},
		{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_router_live",
			Input: "#!/usr/bin/env python3\nimport sys\nprint(sys.version)\n"}, Deltas: 4},
		{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_rejected",
			Input: "#!/usr/bin/env -S\n"}},
	}, false)
	if err := s.turn(ctx); err != nil {
		t.Fatal(err)
	}
	b := startCDP(ctx, t, bin)
	page, err := b.open(ctx, s.base+"/")
	if err != nil {
		t.Fatal(err)
	}
	b.waitTrue(ctx, page, "the live feed and the first summary",
		`document.getElementById("status").className === "live" && !!document.querySelector('[data-call-id="call_before_page"]')`)
	if v, _ := b.eval(ctx, page, `!!document.querySelector('[data-call-id="call_router_live"]')`); string(v) != "false" {
		t.Fatal("the live call is on the page before it happened")
	}

	for range 2 {
		if err := s.turn(ctx); err != nil {
			t.Fatal(err)
		}
	}
	b.waitTrue(ctx, page, "the live call", `!!document.querySelector('#calls tr[data-call-id="call_router_live"]')`)
	b.waitTrue(ctx, page, "the rejection", `!!document.querySelector('#rejections tr[data-call-id="call_rejected"]')`)
	for what, expr := range map[string]string{
		"newest call first":             `document.querySelector("#calls tr").dataset.callId === "call_router_live"`,
		"rejected call counted once":    `!document.querySelector('#calls tr[data-call-id="call_rejected"]') && document.getElementById("cards").textContent.includes("1rejections")`,
		"rejection line, no diagnostic": `document.getElementById("rejections").textContent.includes("shell: line 1: rejected") && !document.body.textContent.includes("env selector")`,
		"worker kind":                   `document.querySelector('[data-call-id="call_router_live"]').textContent.includes("worker")`,
		"python3":                       `document.querySelector('[data-call-id="call_router_live"]').textContent.includes("python3")`,
		"totals":                        `document.getElementById("cards").textContent.includes("2shell calls")`,
		"chart bars":                    chartBarsOneSession,
		"still live":                    `document.getElementById("status").className === "live"`,
		"no script body":                `!document.body.textContent.includes("sys.version")`,
	} {
		if v, err := b.eval(ctx, page, expr); err != nil || string(v) != "true" {
			t.Errorf("%s: %s %v", what, v, err)
		}
	}

	png := b.screenshot(ctx, page)
	shot := filepath.Join(t.TempDir(), "dashboard-router-session.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot: %v", err)
	}
	if dir := os.Getenv("HPATCH_ARTIFACTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, filepath.Base(shot)), png, 0o644)
	}
	t.Logf("dashboard screenshot of the live router session (%d bytes): %s", len(png), shot)
}
