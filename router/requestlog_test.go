package router

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDebugLogNamesStatus (issue 37): --log-level debug logs one line per
// request that carries its status; the 404 names every route, the
// dashboard's too.
func TestDebugLogNamesStatus(t *testing.T) {
	var logs bytes.Buffer
	rt := newTestRouter(t, Logger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	for _, tc := range []struct {
		path, want string
		status     int
	}{
		{"/healthz", "path=/healthz status=200", 200},
		{"/nope", "path=/nope status=404", 404},
	} {
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.status {
			t.Fatalf("%s: %d", tc.path, rec.Code)
		}
		if !strings.Contains(logs.String(), `msg="request done" method=GET `+tc.want) {
			t.Errorf("debug log lacks %q:\n%s", tc.want, logs.String())
		}
		if tc.status == 404 && !strings.Contains(rec.Body.String(), "the dashboard at /") {
			t.Errorf("404 leaves out the dashboard: %s", rec.Body.String())
		}
	}
}
