//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"hpatch-router/router/access"
)

// checkRouterHealth is the first of the router checks (this file): the
// router answers, then checkUpstreamModels: it reaches the upstream.
func checkRouterHealth(ctx context.Context, router string, client *http.Client) check {
	c := check{Name: "router-health", Title: "router answers /healthz", Required: true}
	status, body, err := httpGet(ctx, client, router+"/healthz", 4<<10) // a router refusal is whole
	switch {
	case err != nil:
		c.Detail = err.Error()
		c.Fix = "start it: hpatch-router serve --listen " + hostPort(router) + " (or pass --router with its address)"
	case status == http.StatusForbidden && routerOwnCode(body) == access.CodePeerNotOwner:
		msg, _ := routerOwnError(body)
		c.Detail = router + " is another user's " + msg
		c.Fix = "run your own on a free port: hpatch-router serve --listen 127.0.0.1:PORT, and point Codex at it (hpatch-router codex-config --listen 127.0.0.1:PORT)"
	case status != http.StatusOK || strings.TrimSpace(body) != "ok":
		c.Detail = fmt.Sprintf("%s/healthz answered %d %q: something other than hpatch-router listens there", router, status, clipValue(strings.TrimSpace(body)))
		c.Fix = "start the router on a free address and point Codex at it (hpatch-router codex-config --listen ADDR)"
	default:
		c.OK, c.Detail = true, router+"/healthz: ok"
	}
	return c
}

// checkRouterOwner: the address Codex sends its credentials to is served
// by this user. On a shared host another user can listen there first, or
// while the router is down, and would get every request Codex sends, auth
// headers included; the router's own access check cannot see that.
// serverOwner is access.ServerOwner when nil.
func checkRouterOwner(ctx context.Context, router string, uid int, serverOwner func(net.Conn) (int, bool, error)) check {
	c := check{Name: "router-owner", Title: "you own the process listening at the router's address", Required: true}
	if serverOwner == nil {
		serverOwner = access.ServerOwner
	}
	var conn net.Conn
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		cn, err := d.DialContext(ctx, network, addr)
		conn = cn
		return cn, err
	}}
	defer tr.CloseIdleConnections()
	// An answer means the server accepted the connection: its end then
	// has an owner the kernel reports.
	if _, _, err := httpGet(ctx, &http.Client{Transport: tr, Timeout: 10 * time.Second}, router+"/healthz", 256); err != nil || conn == nil {
		return c.skip("nothing answers at " + hostPort(router) + " (see router answers /healthz)")
	}
	owner, known, err := serverOwner(conn)
	switch {
	case errors.Is(err, access.ErrNoLookup):
		c.OK, c.Detail = true, "cannot tell on this system who listens at "+hostPort(router)
	case err != nil:
		c.Detail = "cannot tell who listens at " + hostPort(router) + ": " + err.Error()
		c.Fix = "check the listener's owner yourself: ss -ltnpe (its uid), then rerun doctor"
	case !known:
		// hpatch-router keeps a connection that answered /healthz open.
		c.Detail = "the server at " + hostPort(router) + " closed the connection before its owner could be read: it is not your hpatch-router"
		c.Fix = "check who listens there: ss -ltnpe (its uid); point Codex at your own router (hpatch-router codex-config --listen 127.0.0.1:PORT)"
	case owner != uid:
		c.Detail = fmt.Sprintf("%s is served by uid %d, not by you (uid %d): Codex would send that user its requests and your credentials", hostPort(router), owner, uid)
		c.Fix = "point Codex at your own router on a free port (hpatch-router serve --listen 127.0.0.1:PORT; hpatch-router codex-config --listen 127.0.0.1:PORT) and tell the host's admin"
	default:
		c.OK, c.Detail = true, fmt.Sprintf("%s is served by you (uid %d)", hostPort(router), uid)
	}
	return c
}

const upstreamTitle = "GET /v1/models reaches the upstream through the router"

// checkUpstreamModels asks the upstream's model list through the router.
// The doctor sends no credentials, so 401/403 from the upstream still
// proves the path router→upstream works; an error the router produced
// itself (its body says "hpatch-router: …") means the upstream was not
// reached.
func checkUpstreamModels(ctx context.Context, router string, client *http.Client) check {
	c := check{Name: "upstream-models", Title: upstreamTitle, Required: true}
	status, body, err := httpGet(ctx, client, router+"/v1/models", 64<<10)
	if err != nil {
		c.Detail = err.Error()
		c.Fix = "start the router first (see router answers /healthz)"
		return c
	}
	if msg, ok := routerOwnError(body); ok {
		c.Detail = fmt.Sprintf("the router answered %d itself: %s", status, msg)
		c.Fix = "check serve --upstream (e.g. https://chatgpt.com/backend-api/codex or https://api.openai.com/v1) and the network from the router"
		if status == http.StatusForbidden { // refused by its access guard: the request never got that far
			c.Fix = "see router answers /healthz"
		}
		return c
	}
	switch {
	case status >= 200 && status < 300:
		c.OK, c.Detail = true, fmt.Sprintf("upstream answered %d", status)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		c.OK = true
		c.Detail = fmt.Sprintf("upstream answered %d (the doctor sends no credentials; Codex sends its own)", status)
	default:
		c.Detail = fmt.Sprintf("upstream answered %d", status)
		c.Fix = "check serve --upstream: /v1/<rest> is forwarded to <upstream>/<rest>"
	}
	return c
}

// routerError is the router's own OpenAI-shaped error body.
type routerError struct {
	Error struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"error"`
}

func parseRouterError(body string) (routerError, bool) {
	var e routerError
	if json.Unmarshal([]byte(body), &e) != nil || !strings.HasPrefix(e.Error.Message, "hpatch-router: ") {
		return routerError{}, false
	}
	return e, true
}

// routerOwnError recognises the router's own error body and returns its
// message.
func routerOwnError(body string) (string, bool) {
	e, ok := parseRouterError(body)
	return e.Error.Message, ok
}

// routerOwnCode is the code of the router's own error body, "" for any
// other body.
func routerOwnCode(body string) string {
	e, _ := parseRouterError(body)
	return e.Error.Code
}

func httpGet(ctx context.Context, client *http.Client, u string, limit int64) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("GET %s: %w", u, unwrapURLError(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return resp.StatusCode, "", fmt.Errorf("GET %s: reading the body: %w", u, err)
	}
	return resp.StatusCode, string(b), nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func hostPort(router string) string {
	if u, err := url.Parse(router); err == nil && u.Host != "" {
		return u.Host
	}
	return router
}
