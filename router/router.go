package router

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"hpatch-router/router/history"
	"hpatch-router/router/request"
	"hpatch-router/router/response"
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
	// proxy is the proxy core: forward, relay, fail (proxy*.go).
	proxy
	cfg    config
	replay *threadstate.Store
	// history is the history stage: the request's input read against
	// the thread's state.
	history *history.Stage
	// rewriter is the request stage's rewrite, with its memo of the
	// additional_tools items a thread repeats.
	rewriter *request.Rewriter
	// streams counts each thread's responses being rewritten (the
	// history stage's settle takes no call as gone while one streams).
	streams threadStreams
	runtime threadRuntime
	// responseDeps is what every response's rewrite session uses of the
	// router.
	responseDeps response.Deps
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
		proxy:    newProxy(&cfg, newMetrics()),
		cfg:      cfg,
		replay:   store,
		rewriter: request.NewRewriter(0),
		runtime:  threadRuntime{runtime: cfg.runtime, log: cfg.logger},
	}
	rt.history = history.New(store, cfg.scripts, cfg.translator, rt.metrics, rt.log)
	rt.responseDeps = response.Deps{Store: store, Translator: cfg.translator, Scripts: cfg.scripts, Runtime: rt.runtime,
		Metrics: rt.metrics, Observers: &rt.cfg.observers, Log: rt.log}
	rt.metrics.gauge("hpatch_router_request_bytes_held", "Request body bytes held in memory now.", rt.held.used.Load)
	rt.metrics.gauge("hpatch_router_request_bytes_limit", "Bound on the request body bytes held in memory at once (beyond it: 503).",
		func() int64 { return rt.held.limit })
	if cfg.mode == ModeHPatch {
		rt.runtime.prepareRecent(context.Background(), store, time.Now())
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
