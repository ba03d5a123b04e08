package router

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// TestServeRealCaptureRoundTrip runs the production request rewrite and
// translator over a real Codex 0.169 request: the model gets `shell`, its
// shell call reaches Codex as an exec carrier that calls
// tools.exec_command, and the echoed carrier is restored in the next
// request.
func TestServeRealCaptureRoundTrip(t *testing.T) {
	first, err := os.ReadFile("../testdata/codex/captures/cli-lite-exec/000-post.json")
	if err != nil {
		t.Fatal(err)
	}
	s := &stream{}
	s.created()
	original := s.call("ctc_1", "call_py", "shell", "functions", pyInput, 3)
	s.completed()
	up := &replayUpstream{first: s.String()}
	upstream := httptest.NewServer(http.HandlerFunc(up.handler))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	rt, err := New(Upstream(u), StateDir(t.TempDir()), Logger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	post := func(body []byte) string {
		req := httptest.NewRequest("POST", "/v1/responses", strings.NewReader(string(body)))
		req.Header.Set("Thread-Id", "01a23618-3154-7773-b8cb-233739215f5f")
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	out := post(first)
	if !strings.Contains(up.body(0), `"name":"shell"`) {
		t.Fatal("the upstream request has no shell tool")
	}
	var carrier string
	for _, e := range parseEvents(t, []byte(out)) {
		if e.data["type"] == "response.output_item.done" {
			item := e.data["item"].(map[string]any)
			if item["name"] != "exec" || item["namespace"] != "functions" {
				t.Fatalf("carrier item %v", item)
			}
			carrier = item["input"].(string)
		}
	}
	if !strings.Contains(carrier, "tools.exec_command(") {
		t.Fatalf("carrier %q", carrier)
	}
	echo := echoOf("ctc_1", "call_py", "functions", carrier)
	n := gjson.GetBytes(first, "input.#").Int()
	second, _ := sjson.SetRawBytes(first, "input."+itoa(n), []byte(echo))
	second, _ = sjson.SetRawBytes(second, "input."+itoa(n+1), []byte(`{"type":"custom_tool_call_output","id":"ctco_1","call_id":"call_py","output":"Script completed\n"}`))
	post(second)
	got := gjson.Get(up.body(1), "input."+itoa(n)).Raw
	if got != original {
		t.Fatalf("restored item\n%s\nwant\n%s", got, original)
	}
	if gjson.Get(up.body(1), "input."+itoa(n+1)+".id").String() != "ctco_1" {
		t.Fatal("output item changed")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
