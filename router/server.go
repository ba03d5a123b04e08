package router

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	pathpkg "path"
	"strings"
	"time"

	"hpatch-router/router/history"
	"hpatch-router/router/request"
	"hpatch-router/router/response"
	"hpatch-router/router/sse"
	"hpatch-router/router/threadstate"
)

// Router is the proxy between Codex and the model API. It is an
// http.Handler:
//
//	POST /v1/responses  rewritten (ModeHPatch) and forwarded to <upstream>/responses
//	POST /v1/responses/compact  replayed carriers restored, then forwarded
//	any other /v1/...   forwarded as it is to <upstream>/...
//	GET /healthz        "ok"
//	GET /metrics        Prometheus text format
type Router struct {
	cfg       config
	log       *slog.Logger
	transport http.RoundTripper
	metrics   *metrics
	replay    *threadstate.Store
	// history is the history stage: the request's input read against
	// the thread's state.
	history *history.Stage
	// rewriter is the request stage's rewrite, with its memo of the
	// additional_tools items a thread repeats.
	rewriter *request.Rewriter
	// streams counts each thread's responses being rewritten (settle).
	streams threadStreams
	held    heldBytes // request body bytes in memory (see MaxRequestMemory)
	sse     *sse.Pool
	runtime threadRuntime
	// rewrite is what every response's rewrite session uses of the router.
	rewrite response.Deps
}

// New builds a Router. Upstream is required.
func New(opts ...Option) (*Router, error) {
	cfg := config{
		mode:                 ModeHPatch,
		responseStartTimeout: DefaultResponseStartTimeout,
		streamIdleTimeout:    DefaultStreamIdleTimeout,
		maxRequestBody:       DefaultMaxRequestBody,
		maxRequestMemory:     DefaultMaxRequestMemory,
		maxEventSize:         defaultMaxEventSize,
	}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.upstream == nil {
		return nil, errors.New("an upstream URL is required (the Upstream option)")
	}
	if err := CheckRequestBounds(cfg.maxRequestBody, cfg.maxRequestMemory); err != nil {
		return nil, err
	}
	if cfg.logger == nil {
		cfg.logger = slog.Default()
	}
	if cfg.transport == nil {
		cfg.transport = defaultTransport()
	}
	if cfg.translator == nil {
		cfg.translator = shebangTranslator{}
	}
	store, err := threadstate.Open(cfg.stateDir, threadstate.DefaultLimits(), cfg.logger)
	if err != nil {
		return nil, err
	}
	rt := &Router{
		cfg:       cfg,
		log:       cfg.logger,
		transport: cfg.transport,
		metrics:   newMetrics(),
		replay:    store,
		rewriter:  request.NewRewriter(0),
		held:      heldBytes{limit: cfg.maxRequestMemory},
		sse:       sse.NewPool(cfg.maxEventSize),
		runtime:   threadRuntime{runtime: cfg.runtime, log: cfg.logger},
	}
	rt.history = history.New(store, cfg.scripts, cfg.translator, rt.metrics, rt.log)
	rt.rewrite = response.Deps{Store: store, Translator: cfg.translator, Scripts: cfg.scripts, Runtime: rt.runtime,
		Metrics: rt.metrics, Observers: &rt.cfg.observers, Log: rt.log}
	rt.metrics.gauge("hpatch_router_request_bytes_held", "Request body bytes held in memory now.", rt.held.used.Load)
	rt.metrics.gauge("hpatch_router_request_bytes_limit", "Bound on the request body bytes held in memory at once (beyond it: 503).",
		func() int64 { return rt.held.limit })
	if cfg.mode == ModeHPatch {
		rt.prepareRecentThreads(context.Background(), time.Now())
	}
	return rt, nil
}

// Close fsyncs and closes the replay journals, stops their maintainer and
// releases idle upstream connections. Call it once the http.Server has shut
// down; in-flight requests are not waited for.
func (rt *Router) Close() error {
	if ci, ok := rt.transport.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
	return rt.replay.Close()
}

// ServeHTTP routes one request. Its path is cleaned first, so dot
// segments cannot lead outside /v1/ and so outside the upstream base path.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w, done := rt.logRequests(r.Context(), w, r, r.URL.Path)
	defer done()
	r, ok := cleanRequestPath(r)
	if !ok {
		rt.metrics.request("bad_path")
		writeRouterError(w, http.StatusBadRequest, "invalid_request_error", "invalid_path",
			"the request path contains a backslash; send a plain /v1/... path")
		return
	}
	path := r.URL.Path
	switch {
	case path == "/healthz":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
		return
	case path == "/metrics" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		rt.metrics.write(w)
		return
	case path == "/v1/responses" && r.Method == http.MethodPost:
		rt.metrics.request("responses")
		rt.serveResponses(w, r, false)
	case path == "/v1/responses/compact" && r.Method == http.MethodPost:
		rt.metrics.request("compact")
		rt.serveResponses(w, r, true)
	case strings.HasPrefix(path, "/v1/"):
		rt.metrics.request("forward")
		rt.forward(w, r, nil)
	default:
		rt.metrics.request("not_found")
		writeRouterError(w, http.StatusNotFound, "invalid_request_error", "not_found",
			"no route for "+r.Method+" "+path+"; the router serves /v1/..., /healthz, /metrics and, unless serve --dashboard=false, the dashboard at /")
	}
}

// cleanRequestPath returns r with its path cleaned of dot segments and
// repeated slashes (a trailing slash is kept; the escaping of a path that
// needed no cleaning is kept too). ok is false for a path with a
// backslash, which some servers read as a separator.
func cleanRequestPath(r *http.Request) (_ *http.Request, ok bool) {
	p := r.URL.Path
	if strings.Contains(p, "\\") {
		return r, false
	}
	clean := pathpkg.Clean("/" + p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	if clean == p {
		return r, true
	}
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = clean, ""
	r2.URL = &u
	return r2, true
}
