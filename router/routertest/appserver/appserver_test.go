package appserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"hpatch-router/router/routertest/appserver"
)

// TestMain lets the test binary play a scripted `codex app-server` when
// run with FAKE_APP_SERVER=1 (Session.Run starts "<binary> app-server").
func TestMain(m *testing.M) {
	if os.Getenv("FAKE_APP_SERVER") == "1" {
		fakeAppServer()
		return
	}
	os.Exit(m.Run())
}

// fakeAppServer answers initialize, thread/start and turn/start; each turn
// first asks the client for an approval and then completes.
func fakeAppServer() {
	sc := bufio.NewScanner(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	turns := 0
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Method {
		case "initialize":
			_ = enc.Encode(map[string]any{"id": m.ID, "result": map[string]any{"userAgent": "fake"}})
		case "thread/start":
			_ = enc.Encode(map[string]any{"id": m.ID, "result": map[string]any{"thread": map[string]any{"id": "th-1"}}})
		case "turn/start":
			turns++
			_ = enc.Encode(map[string]any{"id": m.ID, "result": map[string]any{}})
			_ = enc.Encode(map[string]any{"id": 900 + turns, "method": "item/commandExecution/requestApproval", "params": map[string]any{}})
		case "":
			if strings.Contains(string(m.Result), "accept") {
				_ = enc.Encode(map[string]any{"method": "turn/completed", "params": map[string]any{"turn": map[string]any{"id": fmt.Sprint(turns), "status": "completed"}}})
			}
		}
	}
}

func TestSessionRun(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := appserver.Session{Codex: self, Dir: t.TempDir(), Env: append(os.Environ(), "FAKE_APP_SERVER=1"), Log: &log}
	res, err := s.Run(ctx, "one", "two")
	if err != nil {
		t.Fatal(err)
	}
	if res.ThreadID != "th-1" || len(res.Turns) != 2 || !strings.Contains(string(res.Turns[1]), `"completed"`) {
		t.Errorf("result: thread %q turns %s", res.ThreadID, res.Turns)
	}
	if !strings.Contains(log.String(), `"dir":"c2s"`) || !strings.Contains(log.String(), `"decision":"accept"`) {
		t.Errorf("log lacks the client side or the approval answer:\n%s", log.String())
	}
}
