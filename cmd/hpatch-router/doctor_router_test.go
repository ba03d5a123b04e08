package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hpatch-router/router"
	"hpatch-router/router/routertest"
)

// The doctor against the real router in front of the scripted upstream:
// every required check passes; with the upstream gone, the router's own
// 502 is recognised as "upstream not reached".
func TestDoctorAgainstRealRouter(t *testing.T) {
	up := routertest.NewUpstream(t, routertest.Scenario{Models: []byte(`{"models":[]}`)})
	u, err := url.Parse(up.URL())
	if err != nil {
		t.Fatal(err)
	}
	rt, err := router.New(router.Upstream(u), router.Logger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	srv := httptest.NewServer(rt)
	t.Cleanup(srv.Close)

	m := newFakeMachine(t)
	m.installSameBuildHelper()
	m.writeCodexConfig(providerConfig(srv.URL))
	checks, code := runDoctorJSON(t, m, "--router", srv.URL+"/v1")
	got := byName(checks)
	if code != 0 || !got["upstream-models"].OK || got["upstream-models"].Detail != "upstream answered 200" {
		t.Fatalf("exit %d: %+v", code, checks)
	}

	up.Close()
	var out bytes.Buffer
	code = doctorMain(context.Background(), []string{"--router", srv.URL}, m.doctorEnv(), stdio{strings.NewReader(""), &out, io.Discard})
	if code != 1 || !strings.Contains(out.String(), "✗ GET /v1/models reaches the upstream through the router (required): the router answered 502 itself: hpatch-router: upstream request failed") {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
}
