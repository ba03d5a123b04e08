package router

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/router/request"
)

// TestRequestErrorGoldens: a capture the request stage refuses is answered
// with exactly the body in its .error.json golden (package request's
// TestRequestCaptures checks the other goldens and the codes).
func TestRequestErrorGoldens(t *testing.T) {
	goldens, err := filepath.Glob("../testdata/codex/golden/*/*.error.json")
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no error goldens (%v)", err)
	}
	for _, g := range goldens {
		scenario := filepath.Base(filepath.Dir(g))
		file := scenario + "/" + strings.TrimSuffix(filepath.Base(g), ".error.json") + "-post.json"
		t.Run(file, func(t *testing.T) {
			_, _, err := rewrittenBody(readCapture(t, file))
			if err == nil {
				t.Fatal("the capture was not refused")
			}
			want, rerr := os.ReadFile(g)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if got := append(requestError(err).Body(), '\n'); !bytes.Equal(got, want) {
				t.Fatalf("error body\n%s\nwant (%s)\n%s", got, g, want)
			}
		})
	}
}

// The request stage's refusal is answered as an OpenAI-shaped 400 with its
// code, the message led by hpatch-router, in a stable key order.
func TestRequestErrorBody(t *testing.T) {
	_, _, err := rewrittenBody([]byte(`{"model":"m","tools":[{"type":"custom","name":"exec","description":"x"}],"input":[]}`))
	e := requestError(err)
	var got struct {
		Error struct{ Message, Type, Code string }
	}
	if err := json.Unmarshal(e.Body(), &got); err != nil {
		t.Fatal(err)
	}
	if e.StatusCode() != http.StatusBadRequest || !strings.HasPrefix(got.Error.Message, "hpatch-router: top-level tools[0]") ||
		got.Error.Type != "invalid_request_error" || got.Error.Code != request.CodeUnsupportedToolLayout {
		t.Fatalf("error %d, body = %s", e.StatusCode(), e.Body())
	}
	if !bytes.HasPrefix(e.Body(), []byte(`{"error":{"message":"hpatch-router: `)) {
		t.Fatalf("key order: %s", e.Body())
	}
}

// TestRequestExecWithoutExecCommandIsLogged: the server logs one line that
// names the command tool it found, and forwards the body unchanged.
func TestRequestExecWithoutExecCommandIsLogged(t *testing.T) {
	var log bytes.Buffer
	shellCommandExec := `{"type":"custom","name":"exec","description":"Run JavaScript\n- Nested tools are on the global ` + "`tools`" +
		` object, for example ` + "`await tools.shell_command(...)`" + `.\n\n### ` + "`shell_command`" + `\nRuns a command."}`
	body := []byte(`{"model":"m","input":[{"type":"additional_tools","id":"at_1","role":"developer","tools":[` +
		`{"type":"namespace","name":"functions","description":"","tools":[` + shellCommandExec + `]}]}]}`)
	got := make(chan []byte, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"r","output":[]}`))
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	srv, err := New(Upstream(u), Logger(slog.New(slog.NewTextHandler(&log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/responses", bytes.NewReader(body)))
	if rec.Code != 200 || !bytes.Equal(<-got, body) {
		t.Fatalf("status %d; the body must be forwarded unchanged", rec.Code)
	}
	if n := strings.Count(log.String(), "offers no exec_command"); n != 1 || !strings.Contains(log.String(), "command_tool=shell_command") {
		t.Fatalf("want one log line naming shell_command, got:\n%s", log.String())
	}
}
