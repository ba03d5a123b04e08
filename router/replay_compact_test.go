package router

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"hpatch-router/router/history"
)

// Codex's remote compaction (POST /v1/responses/compact) sends the
// conversation too: echoed carriers are restored to the model's original
// calls, nothing else in the request changes, and the compaction response
// is relayed as it is (its items are not turned into carriers).
func TestReplayRestoresCompactRequest(t *testing.T) {
	s := &stream{}
	s.created()
	original := s.call("ctc_1", "call_1", "shell", "functions", pyInput, 3)
	s.completed()
	up := &replayUpstream{first: s.String()}
	var (
		mu      sync.Mutex
		compact []string
	)
	compactResp := `{"output":[` + original + `,{"type":"compaction","encrypted_content":"abc"}]}`
	handler := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/base/responses/compact" {
			up.handler(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		compact = append(compact, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, compactResp)
	}
	h := newHarness(t, handler, StateDir(t.TempDir()))
	readAll(t, h.post(ownedRequest(), "Thread-Id", "thread-1"))

	post := func(body string, hdr ...string) *http.Response {
		req, _ := http.NewRequest("POST", h.front.URL+"/v1/responses/compact", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		return h.do(req)
	}
	echo := echoOf("ctc_1", "call_1", "functions", "carrier(worker|"+pyInput+"|false|)")
	output := `{"type":"custom_tool_call_output","call_id":"call_1","output":"Script completed\n"}`
	body := `{"model":"m","input":[{"type":"message","role":"user","content":[]},` + echo + "," + output + `],"instructions":"be brief","tools":[]}`
	resp := post(body, "Thread-Id", "thread-1")
	if got := readAll(t, resp); resp.StatusCode != 200 || got != compactResp {
		t.Fatalf("compact response %d %s", resp.StatusCode, got)
	}
	want := strings.Replace(body, echo, original, 1)
	mu.Lock()
	got := compact[0]
	mu.Unlock()
	if got != want {
		t.Fatalf("upstream compact request\n%s\nwant\n%s", got, want)
	}

	// A carrier that does not match is refused, as in /v1/responses.
	bad := `{"input":[` + echoOf("ctc_1", "call_1", "functions", "other") + `]}`
	wantRouterError(t, post(bad, "Thread-Id", "thread-1"), http.StatusConflict, history.CodeReplayMismatch)
	// Without a thread nothing is known: the body passes unchanged.
	readAll(t, post(body))
	mu.Lock()
	defer mu.Unlock()
	if len(compact) != 2 || compact[1] != body {
		t.Fatalf("compact requests %d, last %s", len(compact), compact[len(compact)-1])
	}
}
