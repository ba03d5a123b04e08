package access

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"hpatch-router/internal/testuser"
	"hpatch-router/router/access/accesstest"
)

func TestMain(m *testing.M) {
	accesstest.Main()
	os.Exit(m.Run())
}

// TestCrossUserRefused: a client process running as another uid gets 403
// peer_not_owner on every route and the handler never runs; the same
// requests from this user pass. With AllowRemote the local other user is
// still identified and refused.
func TestCrossUserRefused(t *testing.T) {
	other := testuser.New(t, "/usr/sbin/nologin")
	for _, allowRemote := range []bool{false, true} {
		var reached atomic.Int32
		g := New(quiet(), AllowRemote(allowRemote))
		srv := httptest.NewUnstartedServer(g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			reached.Add(1)
			io.WriteString(w, "served")
		})))
		srv.Config.ConnContext = g.ConnContext
		srv.Start()
		var reqs []accesstest.Request
		for _, p := range []string{"/v1/responses", "/v1/models", "/metrics", "/healthz", "/", "/events", "/api/summary"} {
			method := "GET"
			if p == "/v1/responses" {
				method = "POST"
			}
			reqs = append(reqs, accesstest.Request{Method: method, URL: srv.URL + p, Header: map[string]string{"Thread-Id": "victim"}, Body: []byte("{}")})
		}
		for i, resp := range accesstest.Do(t, other, reqs...) {
			if resp.Err != "" {
				t.Fatalf("%s: %s", reqs[i].URL, resp.Err)
			}
			accesstest.WantRefusal(t, reqs[i].URL, resp.Status, resp.Body, CodePeerNotOwner)
		}
		if n := reached.Load(); n != 0 {
			t.Fatalf("allowRemote=%v: the handler ran %d times for another user", allowRemote, n)
		}
		resp, err := http.Get(srv.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "served" {
			t.Fatalf("own user: %d %s", resp.StatusCode, b)
		}
		srv.Close()
	}
}
