package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"hpatch-router/router"
	"hpatch-router/router/access"
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
	m.registerLauncher(m.self) // what the router answering there registered
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

func TestDoctorRouterAndUpstream(t *testing.T) {
	ctx := context.Background()
	routerErr := `{"error":{"message":"hpatch-router: upstream unreachable: connection refused","type":"server_error","code":"upstream_unreachable"}}`
	cases := []struct {
		name   string
		status int
		body   string
		ok     bool
		detail string
	}{
		{"upstream 200", 200, `{"models":[]}`, true, "upstream answered 200"},
		{"upstream 401 without credentials", 401, `{"detail":"Unauthorized"}`, true, "sends no credentials"},
		{"upstream 404", 404, `not found`, false, "upstream answered 404"},
		{"router could not reach upstream", 502, routerErr, false, "the router answered 502 itself: hpatch-router: upstream unreachable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakeRouter(t, c.status, c.body)
			if h := checkRouterHealth(ctx, srv.URL, http.DefaultClient); !h.OK {
				t.Fatalf("health: %+v", h)
			}
			got := checkUpstreamModels(ctx, srv.URL, http.DefaultClient)
			if got.OK != c.ok || !strings.Contains(got.Detail, c.detail) || (!got.OK && got.Fix == "") {
				t.Fatalf("%+v", got)
			}
		})
	}
	t.Run("nothing listening", func(t *testing.T) {
		srv := fakeRouter(t, 200, "")
		url := srv.URL
		srv.Close()
		h := checkRouterHealth(ctx, url, http.DefaultClient)
		if h.OK || !strings.Contains(h.Detail, "connection refused") || !strings.Contains(h.Fix, "hpatch-router serve --listen 127.0.0.1:") {
			t.Fatalf("%+v", h)
		}
		if u := checkUpstreamModels(ctx, url, http.DefaultClient); u.OK {
			t.Fatalf("%+v", u)
		}
	})
	// Two users on one host, both set up for the default address: the
	// second one's doctor reaches the first one's router, which refuses
	// every route. Not "something other than hpatch-router", not an
	// upstream problem: their own router is missing.
	t.Run("another user's router", func(t *testing.T) {
		// The whole refusal, as long as the real one (over 256 bytes).
		refusal := `{"error":{"message":"hpatch-router: this router serves only its own user (uid 1005); the connection belongs to uid 1006; ` +
			`run your own router on another port (hpatch-router serve --listen 127.0.0.1:PORT) and point Codex at it (hpatch-router codex-config --listen 127.0.0.1:PORT)",` +
			`"type":"permission_error","code":"peer_not_owner"}}`
		theirs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, refusal)
		}))
		t.Cleanup(theirs.Close)
		h := checkRouterHealth(ctx, theirs.URL, http.DefaultClient)
		if h.OK || !strings.Contains(h.Detail, theirs.URL+" is another user's hpatch-router: this router serves only its own user (uid 1005)") ||
			!strings.Contains(h.Fix, "run your own on a free port: hpatch-router serve --listen 127.0.0.1:PORT") {
			t.Fatalf("health: %+v", h)
		}
		u := checkUpstreamModels(ctx, theirs.URL, http.DefaultClient)
		if u.OK || u.Fix != "see router answers /healthz" {
			t.Fatalf("models: %+v", u)
		}
	})
	t.Run("something else listening", func(t *testing.T) {
		other := fakeRouter(t, 200, "")
		h := checkRouterHealth(ctx, other.URL+"/x", http.DefaultClient) // /x/healthz: 404
		if h.OK || !strings.Contains(h.Detail, "something other than hpatch-router") {
			t.Fatalf("%+v", h)
		}
	})
}

// Another user listening at the router's address (first, or while the
// router is down) gets what Codex sends there, credentials included:
// doctor fails when the listener is not the user's own.
func TestDoctorRouterOwner(t *testing.T) {
	ctx := context.Background()
	srv := fakeRouter(t, 200, "")
	me := os.Getuid()
	for _, c := range []struct {
		name   string
		owner  func(net.Conn) (int, bool, error)
		ok     bool
		detail string
	}{
		{"the real lookup: this test's own server", nil, true, "is served by you (uid " + strconv.Itoa(me) + ")"},
		{"another user", func(net.Conn) (int, bool, error) { return me + 7, true, nil }, false,
			"is served by uid " + strconv.Itoa(me+7) + ", not by you (uid " + strconv.Itoa(me) + "): Codex would send that user its requests and your credentials"},
		{"no lookup on this system", func(net.Conn) (int, bool, error) { return 0, false, access.ErrNoLookup }, true, "cannot tell on this system"},
		// A server that closes at once hides its owner: not the router.
		{"server end already closed", func(net.Conn) (int, bool, error) { return 0, false, nil }, false, "closed the connection before its owner could be read"},
		{"lookup failed", func(net.Conn) (int, bool, error) { return 0, false, errors.New("boom") }, false, "cannot tell who listens"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := checkRouterOwner(ctx, srv.URL, me, c.owner)
			if got.OK != c.ok || !strings.Contains(got.Detail, c.detail) || !got.Required || (!got.OK && got.Fix == "") {
				t.Fatalf("%+v", got)
			}
		})
	}
	url := srv.URL
	srv.Close()
	if got := checkRouterOwner(ctx, url, me, nil); got.OK || !strings.Contains(got.Detail, "skipped: nothing answers") {
		t.Fatalf("nothing listening: %+v", got)
	}
}
