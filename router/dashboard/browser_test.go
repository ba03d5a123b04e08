package dashboard

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/internal/testenv"
	"hpatch-router/router"
)

// needChromium finds a headless-capable Chromium on PATH (Debian: apt-get
// install chromium), or skips (fails under CI=true).
func needChromium(t *testing.T) string {
	t.Helper()
	return testenv.NeedTool(t, "chromium")
}

// serveLoopback serves h on 127.0.0.1 and returns its base URL.
func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}

// chromium runs headless Chromium with mode flags (e.g. --dump-dom) on url
// and returns its stdout.
func chromium(ctx context.Context, t *testing.T, bin, url string, mode ...string) []byte {
	t.Helper()
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,1400",
		"--user-data-dir=" + t.TempDir(),
	}
	args = append(append(args, mode...), url)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", mode, err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// scriptedSession plays a short Codex session into d once the page's live
// feed is connected: one shell call and one rejection arrive after the page
// loaded, then the feed ends (d.Close), as when the router stops. Ending the
// stream matters for the test: headless Chromium's virtual time does not
// advance while a fetch (the SSE stream) is pending.
func scriptedSession(ctx context.Context, d *Dashboard, done chan<- struct{}) {
	defer close(done)
	for d.subscriberCount() == 0 {
		if ctx.Err() != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond) // well after load and the summary
	d.ShellCall(router.CallEvent{
		Time: time.Now(), Thread: "019b-thread-live", CallID: "call_live_1",
		Kind: "worker", Interpreter: "python3", Duration: 3200 * time.Microsecond,
		ScriptRef: "@shell/call_live_1", ModelBytes: 612, CarrierBytes: 1490,
		Warnings: []string{"python3 -c: put the program in the body"},
		Body:     "#!/usr/bin/env python3\nprint('must not reach the page')\n",
	})
	d.Rejection(router.RejectionEvent{Time: time.Now(), Thread: "019b-thread-live", Code: "translate",
		Reason: "shell: #!/usr/bin/env -S with no interpreter"})
	time.Sleep(300 * time.Millisecond)
	d.Close()
}

// sessionDashboard is a dashboard holding an earlier part of the session:
// three hours of calls (so the chart has bars) and one call the page gets
// in its first summary.
func sessionDashboard(now time.Time) *Dashboard {
	d := New(KeepAlive(500 * time.Millisecond))
	for h := 3; h >= 1; h-- {
		for i := range 4 {
			d.ShellCall(router.CallEvent{Time: now.Add(-time.Duration(h) * time.Hour), Thread: "019b-thread-old",
				CallID: fmt.Sprintf("call_old_%d_%d", h, i), Kind: []string{"direct", "worker", "template", "rerun"}[i],
				Interpreter: "bash", Duration: time.Millisecond, ModelBytes: 150 * (i + 1), CarrierBytes: 420 * (i + 1)})
		}
	}
	d.ShellCall(router.CallEvent{Time: now, Thread: "019b-thread-old", CallID: "call_before_load",
		Kind: "direct", Duration: 800 * time.Microsecond, ModelBytes: 24, CarrierBytes: 301})
	return d
}

// browse serves a fresh session dashboard, runs the scripted session
// against it and Chromium with mode flags on its page.
func browse(ctx context.Context, t *testing.T, bin string, mode ...string) []byte {
	t.Helper()
	d := sessionDashboard(time.Now())
	url := serveLoopback(t, d.Handler()) + "/"
	sctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go scriptedSession(sctx, d, done)
	defer func() { stop(); <-done }()
	return chromium(ctx, t, bin, url, append([]string{"--virtual-time-budget=3000"}, mode...)...)
}

func TestBrowserShowsLiveShellCall(t *testing.T) {
	bin := needChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	dom := string(browse(ctx, t, bin, "--dump-dom"))
	for _, want := range []string{
		`data-call-id="call_live_1"`,      // pushed after the page loaded: arrived live over SSE
		`data-call-id="call_before_load"`, // from the first summary
		"@shell/call_live_1",
		"shell: #!/usr/bin/env -S with no interpreter",
		`class="bar-carrier"`,
	} {
		if !strings.Contains(dom, want) {
			t.Fatalf("DOM lacks %q:\n%s", want, tail(dom, 4000))
		}
	}
	if strings.Contains(dom, "must not reach the page") {
		t.Fatal("a script body reached the page without Bodies(true)")
	}
	if strings.Index(dom, `data-call-id="call_live_1"`) > strings.Index(dom, `data-call-id="call_before_load"`) {
		t.Fatal("the live call is not listed first")
	}

	shot := filepath.Join(t.TempDir(), "dashboard.png")
	browse(ctx, t, bin, "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("no screenshot at %s: %v", shot, err)
	}
	if dir := os.Getenv("HPATCH_ARTIFACTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "dashboard.png"), png, 0o644); err == nil {
			t.Logf("screenshot copied to %s", filepath.Join(dir, "dashboard.png"))
		}
	}
	t.Logf("dashboard screenshot (%d bytes): %s", len(png), shot)
}
