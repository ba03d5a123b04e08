package dashboard

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hpatch-router/router"
)

// fixedClock returns a clock that starts at t0 and never moves.
func fixedClock(t0 time.Time) func() time.Time { return func() time.Time { return t0 } }

var _ router.Observer = (*Dashboard)(nil)

func sampleCall(t time.Time, id string) router.CallEvent {
	return router.CallEvent{
		Time: t, Thread: "thread-1", CallID: id, Kind: "worker", Interpreter: "python3",
		Duration: 1500 * time.Microsecond, Warnings: []string{"python3 -c wrapper"},
		ScriptRef: "@shell/" + id, ModelBytes: 40, CarrierBytes: 310,
		Body: "#!/usr/bin/env python3\nprint('secret body')\n",
	}
}

func getSummary(t *testing.T, h http.Handler) Summary {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, localRequest(http.MethodGet, "/api/summary"))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("summary: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var s Summary
	if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSummaryTotalsHoursAndNoBodies(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 15, 0, 0, time.UTC)
	d := New(Clock(fixedClock(t0)))
	d.ShellCall(sampleCall(t0, "c1"))
	d.ShellCall(sampleCall(t0.Add(time.Hour), "c2"))
	c3 := sampleCall(t0.Add(time.Hour+time.Minute), "c3")
	c3.Kind, c3.ScriptRef, c3.Warnings = "direct", "", nil
	d.ShellCall(c3)
	d.Rejection(router.RejectionEvent{Time: t0, Thread: "thread-1", Code: "translate", Reason: "shell: unknown selector"})

	s := getSummary(t, d.Handler())
	if s.Totals.Calls != 3 || s.Totals.Rejections != 1 || s.Totals.Warnings != 2 || s.Totals.Retained != 2 {
		t.Fatalf("totals = %+v", s.Totals)
	}
	if s.Totals.ModelBytes != 120 || s.Totals.CarrierBytes != 930 {
		t.Fatalf("bytes = %+v", s.Totals)
	}
	if s.Totals.ByKind["worker"] != 2 || s.Totals.ByKind["direct"] != 1 {
		t.Fatalf("by kind = %v", s.Totals.ByKind)
	}
	if len(s.Hours) != 2 || s.Hours[0].Calls != 1 || s.Hours[1].Calls != 2 ||
		!s.Hours[0].Start.Equal(t0.Truncate(time.Hour)) || s.Hours[1].CarrierBytes != 620 {
		t.Fatalf("hours = %+v", s.Hours)
	}
	if len(s.RecentCalls) != 3 || s.RecentCalls[0].CallID != "c3" || s.RecentCalls[2].CallID != "c1" {
		t.Fatalf("recent calls = %+v", s.RecentCalls)
	}
	if s.RecentCalls[2].DurationMS != 1.5 || s.RecentCalls[2].ScriptRef != "@shell/c1" {
		t.Fatalf("call c1 = %+v", s.RecentCalls[2])
	}
	for _, c := range s.RecentCalls {
		if c.Body != "" {
			t.Fatalf("body shown without Bodies(true): %+v", c)
		}
	}
	if s.Bodies || len(s.RecentRejections) != 1 || s.RecentRejections[0].Reason != "shell: unknown selector" {
		t.Fatalf("rejections = %+v", s.RecentRejections)
	}
}

func TestBodiesShownOnlyWhenEnabled(t *testing.T) {
	d := New(Bodies(true))
	d.ShellCall(sampleCall(time.Now(), "c1"))
	s := getSummary(t, d.Handler())
	if !s.Bodies || !strings.Contains(s.RecentCalls[0].Body, "secret body") {
		t.Fatalf("summary = %+v", s)
	}
}

func TestBoundedMemory(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	d := New(Recent(5), Hours(3), Bodies(true))
	for i := range 20 {
		e := sampleCall(t0.Add(time.Duration(i)*time.Hour), "c")
		e.Body = strings.Repeat("x", 200<<10)
		e.Warnings = make([]string, 100)
		d.ShellCall(e)
		d.Rejection(router.RejectionEvent{Code: "translate", Reason: strings.Repeat("é", 5000)})
	}
	// An event older than every kept hour is counted in totals, not charted.
	d.ShellCall(sampleCall(t0, "old"))
	s := d.Summary()
	if len(s.RecentCalls) != 5 || len(s.RecentRejections) != 5 || len(s.Hours) != 3 {
		t.Fatalf("kept %d calls, %d rejections, %d hours", len(s.RecentCalls), len(s.RecentRejections), len(s.Hours))
	}
	if s.Totals.Calls != 21 || !s.Hours[2].Start.Equal(t0.Add(19*time.Hour)) {
		t.Fatalf("totals %+v hours %+v", s.Totals, s.Hours)
	}
	c := s.RecentCalls[1]
	if len(c.Body) > maxBodyBytes+4 || len(c.Warnings) != maxWarnings {
		t.Fatalf("body %d bytes, %d warnings", len(c.Body), len(c.Warnings))
	}
	if r := s.RecentRejections[0].Reason; len(r) > 2*maxFieldBytes+4 || !strings.HasSuffix(r, "é…") {
		t.Fatalf("reason clipped to %d bytes: %q…", len(r), r[len(r)-8:])
	}
}

func TestPageIsSelfContained(t *testing.T) {
	d := New()
	rec := httptest.NewRecorder()
	d.Handler().ServeHTTP(rec, localRequest(http.MethodGet, "/"))
	body := rec.Body.String()
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatal("no CSP")
	}
	for _, bad := range []string{"http://", "https://", "src=\"//", "@import"} {
		if i := strings.Index(body, bad); i >= 0 && !strings.Contains(body[i:min(i+40, len(body))], "www.w3.org/2000/svg") {
			t.Fatalf("page references an external asset: %q", body[i:min(i+60, len(body))])
		}
	}
	for _, want := range []string{`EventSource("events")`, `id="chart"`, `id="calls"`, `id="rejections"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("page lacks %s", want)
		}
	}
}

func TestRoutes(t *testing.T) {
	d := New()
	h := d.Handler()
	cases := []struct {
		method, target, host string
		want                 int
	}{
		{"GET", "/", "127.0.0.1:8080", 200},
		{"GET", "/api/summary", "localhost:8080", 200},
		{"GET", "/api/summary", "[::1]:8080", 200},
		{"POST", "/api/summary", "127.0.0.1", http.StatusMethodNotAllowed},
		{"GET", "/nope", "127.0.0.1", http.StatusNotFound},
	}
	for _, c := range cases {
		req := httptest.NewRequest(c.method, c.target, nil)
		req.Host = c.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%s %s Host %s: %d, want %d", c.method, c.target, c.host, rec.Code, c.want)
		}
	}
	for _, c := range []struct {
		m, p string
		want bool
	}{{"GET", "/", true}, {"HEAD", "/events", true}, {"GET", "/api/summary", true}, {"POST", "/", false}, {"GET", "/v1/models", false}, {"GET", "/metrics", false}} {
		if Serves(c.m, c.p) != c.want {
			t.Errorf("Serves(%s, %s) = %v", c.m, c.p, !c.want)
		}
	}
}

// localRequest is a request as a browser on the router's machine sends it.
func localRequest(method, target string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	r.Host = "127.0.0.1:8080"
	return r
}

// The summary reports the declared tools and counts each tool's calls.
func TestSummaryTools(t *testing.T) {
	if New().Summary().Tools != nil {
		t.Fatal("tools reported without a Tools option")
	}
	d := New(Tools(func() ToolsState {
		return ToolsState{Dir: "/t", InService: []string{"sql"}, Problems: []string{"/t/b.toml:2: bad; fix"}}
	}))
	d.ShellCall(router.CallEvent{CallID: "c1", Kind: "worker", Tool: "sql"})
	d.ShellCall(router.CallEvent{CallID: "c2", Kind: "direct"})
	s := d.Summary()
	if s.Tools == nil || s.Tools.InService[0] != "sql" || len(s.Tools.Problems) != 1 || s.Totals.ByTool["sql"] != 1 || len(s.Totals.ByTool) != 1 || s.RecentCalls[1].Tool != "sql" {
		t.Fatalf("summary %+v tools %+v", s.Totals, s.Tools)
	}
}
