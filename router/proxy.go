package router

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"hpatch-router/router/sse"
)

// proxy is the router's proxy core, as httputil.ReverseProxy is one: it
// forwards a request upstream (forward, or roundTrip with the body the
// request hook made), relays the answer (relayRaw, relaySSE with the
// response session's per-event hook, relayJSON) and applies the rules
// every forwarded request obeys: header hygiene, the upstream path, the
// response start and stream idle timeouts, the bounds on what a client
// may send and on what the router holds, and one account of every
// failure (failed). It knows nothing of hpatch: Router embeds it and
// calls it around its two hooks.
type proxy struct {
	upstream             *url.URL
	transport            http.RoundTripper
	metrics              *metrics
	log                  *slog.Logger
	responseStartTimeout time.Duration
	streamIdleTimeout    time.Duration
	maxRequestBody       int64
	maxEventSize         int
	held                 heldBytes // request body bytes in memory (see MaxRequestMemory)
	sse                  *sse.Pool
}

// newProxy builds the proxy core of a router configured by cfg.
func newProxy(cfg *config, m *metrics) proxy {
	return proxy{
		upstream:             cfg.upstream,
		transport:            cfg.transport,
		metrics:              m,
		log:                  cfg.logger,
		responseStartTimeout: cfg.responseStartTimeout,
		streamIdleTimeout:    cfg.streamIdleTimeout,
		maxRequestBody:       cfg.maxRequestBody,
		maxEventSize:         cfg.maxEventSize,
		held:                 heldBytes{limit: cfg.maxRequestMemory},
		sse:                  sse.NewPool(cfg.maxEventSize),
	}
}

func defaultTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Relay bodies exactly as the upstream encoded them; the rewrite path
	// asks for identity encoding instead (see outboundRequest).
	t.DisableCompression = true
	t.MaxIdleConnsPerHost = 64
	return t
}
