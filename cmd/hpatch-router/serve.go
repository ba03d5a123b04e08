//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"hpatch-router/plugins/registry"
	"hpatch-router/retain"
	"hpatch-router/router"
	"hpatch-router/router/access"
	"hpatch-router/worker"
	"hpatch-router/worker/snapshot"
)

// serveConfig is everything `serve` reads from its flags and environment.
type serveConfig struct {
	listen               string
	upstream             *url.URL
	mode                 router.Mode
	runtimeDir           string
	stateDir             string
	logLevel             slog.Level
	responseStartTimeout time.Duration
	streamIdleTimeout    time.Duration
	maxRequestBody       int64
	maxRequestMemory     int64
	shutdownGrace        time.Duration
	allowRemote          bool
	dashboard            dashboardFlags
	toolsDir             string
}

// serveEnv is the environment lookups serve's defaults depend on.
type serveEnv struct {
	getenv  func(string) string
	homeDir func() (string, error)
	uid     int
}

func osServeEnv() serveEnv { return serveEnv{os.Getenv, os.UserHomeDir, os.Getuid()} }

// defaultRuntimeDir is the root the shell helper derives by the same rule
// (snapshot.Root), so Codex and the router agree without configuration.
func defaultRuntimeDir(e serveEnv) (string, error) { return snapshot.Root(e.getenv, e.uid) }

func defaultStateDir(e serveEnv) string {
	if d := e.getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "hpatch-router")
	}
	if h, err := e.homeDir(); err == nil && h != "" {
		return filepath.Join(h, ".local", "state", "hpatch-router")
	}
	return ""
}

const serveUsage = "Usage: hpatch-router serve [flags]\n\nRun the proxy between Codex and the model API.\n\nFlags:\n"

// parseServeFlags parses args; it returns (nil, 0) after printing --help
// and (nil, 2) after a usage error.
func parseServeFlags(args []string, e serveEnv, s stdio) (*serveConfig, int) {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8080", "loopback address to serve on; Codex's provider base_url is http://<listen>/v1")
	allowRemote := fs.Bool("allow-remote", false, "accept a --listen address other hosts can reach; their users cannot be identified, so anyone who reaches it can use the router, its dashboard and every thread's retained scripts")
	upstream := fs.String("upstream", "https://chatgpt.com/backend-api/codex", "model API base URL; /v1/<rest> is forwarded to <upstream>/<rest>")
	mode := fs.String("mode", string(router.ModeHPatch), "hpatch: give the model the shell tool and rewrite its calls; passthrough: forward everything unchanged")
	defRoot, rootErr := defaultRuntimeDir(e)
	runtimeDir := fs.String("runtime-dir", defRoot, "absolute runtime root shared with Codex's shell helper: $HPATCH_RUNTIME_DIR, else $XDG_RUNTIME_DIR/hpatch-router, else hpatch-router-<uid> in the temp dir (the helper derives the same); created 0700, refused when another user owns it or group/others can write it; export the same HPATCH_RUNTIME_DIR to Codex when you change it")
	stateDir := fs.String("state-dir", defaultStateDir(e), "directory of the durable replay store, from $XDG_STATE_HOME/hpatch-router or else ~/.local/state/hpatch-router; empty keeps replay in memory only")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error (logs go to stderr; never auth headers or script bodies)")
	startTimeout := fs.Duration("response-start-timeout", router.DefaultResponseStartTimeout, "longest wait for the upstream response headers before answering 504")
	idleTimeout := fs.Duration("stream-idle-timeout", router.DefaultStreamIdleTimeout, "longest silence inside an upstream stream before the router ends it (Codex then retries)")
	maxBody := fs.Int64("max-request-body", router.DefaultMaxRequestBody, "largest request body in bytes the router reads (413 beyond it)")
	maxMemory := fs.Int64("max-request-memory", router.DefaultMaxRequestMemory, "request body bytes held in memory at once across all requests, the bodies the router reads whole to rewrite them (503 beyond it); at least --max-request-body")
	grace := fs.Duration("shutdown-grace", 10*time.Second, "how long SIGINT/SIGTERM waits for in-flight requests before closing them")
	dashEnabled := fs.Bool("dashboard", true, "serve the live dashboard (GET /, /events, /api/summary) on the listen address; keep --listen on loopback")
	toolsDir := toolsDirFlag(fs, e)
	dashBodies := fs.Bool("dashboard-bodies", false, "show script bodies on the dashboard (off: bodies are never shown)")
	if code, done := parseFlags(fs, args, serveUsage, s); done {
		return nil, code
	}
	cfg := &serveConfig{
		listen: *listen, runtimeDir: *runtimeDir, stateDir: *stateDir,
		responseStartTimeout: *startTimeout, streamIdleTimeout: *idleTimeout,
		maxRequestBody: *maxBody, maxRequestMemory: *maxMemory, shutdownGrace: *grace, allowRemote: *allowRemote,
		dashboard: dashboardFlags{enabled: *dashEnabled, bodies: *dashBodies}, toolsDir: *toolsDir,
	}
	var err error
	if cfg.upstream, err = url.Parse(*upstream); err != nil || cfg.upstream.Host == "" {
		fmt.Fprintf(s.err, "hpatch-router serve: --upstream %q is not an absolute URL\n", *upstream)
		return nil, 2
	}
	if cfg.mode, err = router.ParseMode(*mode); err != nil {
		fmt.Fprintf(s.err, "hpatch-router serve: --mode: %v\n", err)
		return nil, 2
	}
	if err := cfg.logLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(s.err, "hpatch-router serve: --log-level %q: use debug, info, warn or error\n", *logLevel)
		return nil, 2
	}
	if cfg.mode == router.ModeHPatch && rootErr != nil && !fs.Changed("runtime-dir") {
		fmt.Fprintf(s.err, "hpatch-router serve: %v\n", rootErr)
		return nil, 2
	}
	if msg := checkServeValues(cfg); msg != "" {
		fmt.Fprintf(s.err, "hpatch-router serve: %s\n", msg)
		return nil, 2
	}
	if err := router.CheckRequestBounds(cfg.maxRequestBody, cfg.maxRequestMemory); err != nil {
		fmt.Fprintf(s.err, "hpatch-router serve: --max-request-memory and --max-request-body: %v\n", err)
		return nil, 2
	}
	if cfg.mode == router.ModeHPatch && !filepath.IsAbs(cfg.runtimeDir) {
		fmt.Fprintf(s.err, "hpatch-router serve: --runtime-dir %q must be absolute\n", cfg.runtimeDir)
		return nil, 2
	}
	return cfg, 0
}

// checkServeValues says, in one line naming the flag, what is wrong with a
// value the router would refuse only once it starts; "" when all are usable.
func checkServeValues(cfg *serveConfig) string {
	if u := cfg.upstream; u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Sprintf("--upstream %q: use an http or https URL (e.g. https://api.openai.com/v1)", u.String())
	}
	if _, _, err := net.SplitHostPort(cfg.listen); err != nil {
		return fmt.Sprintf("--listen %q is not HOST:PORT (e.g. 127.0.0.1:8080)", cfg.listen)
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--response-start-timeout", cfg.responseStartTimeout}, {"--stream-idle-timeout", cfg.streamIdleTimeout}} {
		if d.v <= 0 {
			return fmt.Sprintf("%s %v: must be positive (e.g. 2m)", d.flag, d.v)
		}
	}
	if cfg.maxRequestBody <= 0 {
		return fmt.Sprintf("--max-request-body %d: must be positive (bytes)", cfg.maxRequestBody)
	}
	if cfg.shutdownGrace < 0 {
		return fmt.Sprintf("--shutdown-grace %v: must be 0 or more", cfg.shutdownGrace)
	}
	return ""
}

// runServe is `hpatch-router serve`.
func runServe(ctx context.Context, args []string, s stdio) int {
	env := osServeEnv()
	cfg, code := parseServeFlags(args, env, s)
	if cfg == nil {
		return code
	}
	tuneGC(env.getenv)
	log := slog.New(slog.NewTextHandler(s.err, &slog.HandlerOptions{Level: cfg.logLevel}))
	if err := serve(ctx, cfg, log, nil); err != nil {
		// One plain line, as for a bad flag: a log record would quote it.
		fmt.Fprintf(s.err, "hpatch-router serve: %v\n", err)
		return 1
	}
	return 0
}

// serve runs the router until ctx ends, then shuts down gracefully. ready,
// when not nil, receives the bound address once the listener is up.
func serve(ctx context.Context, cfg *serveConfig, log *slog.Logger, ready func(addr string)) error {
	// Listen first: a refused address creates nothing on disk.
	ln, err := listen(cfg, log)
	if err != nil {
		return err
	}
	defer ln.Close()
	opts := []router.Option{
		router.Upstream(cfg.upstream),
		router.WithMode(cfg.mode),
		router.Logger(log),
		router.StateDir(cfg.stateDir),
		router.ResponseStartTimeout(cfg.responseStartTimeout),
		router.StreamIdleTimeout(cfg.streamIdleTimeout),
		router.MaxRequestBody(cfg.maxRequestBody),
	}
	if cfg.maxRequestMemory > 0 {
		opts = append(opts, router.MaxRequestMemory(cfg.maxRequestMemory))
	}
	var closers []io.Closer
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- {
			if err := closers[i].Close(); err != nil {
				log.Warn("shutdown cleanup", "err", err)
			}
		}
	}()
	if cfg.mode == router.ModeHPatch {
		hooks, cl, err := buildHooks(cfg.runtimeDir, ln.Addr().String(), log)
		closers = append(closers, cl...)
		if err != nil {
			return err
		}
		opts = append(opts, hooks...)
	}
	var startTools func(context.Context, *router.Router)
	var tools *registry.Registry
	if cfg.mode == router.ModeHPatch && cfg.toolsDir != "" {
		var toolsOpt router.Option
		toolsOpt, tools, startTools = serveTools(cfg.toolsDir, log)
		opts = append(opts, toolsOpt)
	}
	dash, dashOpts := newServeDashboard(cfg.dashboard, log, tools)
	opts = append(opts, dashOpts...)
	rt, err := router.New(opts...)
	if err != nil {
		return err
	}
	closers = append(closers, rt)
	if startTools != nil {
		startTools(ctx, rt)
	}

	guard := newGuard(cfg, log)
	srv := &http.Server{
		Handler:           guard.Wrap(withDashboard(rt, dash)),
		ConnContext:       guard.ConnContext,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if dash != nil {
		srv.RegisterOnShutdown(dash.Close)
	}
	log.Info("hpatch-router listening", "addr", ln.Addr().String(), "upstream", redactedURL(cfg.upstream),
		"mode", cfg.mode, "runtime_dir", cfg.runtimeDir, "state_dir", cfg.stateDir, "tools", tools.Current().Len())
	// Once serving (a refusal to start stays one line): a PATH without
	// this build's `shell` helper means every worker call will fail.
	if cfg.mode == router.ModeHPatch {
		if c := helperProblem(ctx, osDoctorEnv()); !c.OK {
			log.Warn("no shell helper of this commit on PATH: Codex's worker shell calls will fail", "found", c.Detail, "fix", c.Fix)
		}
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", cfg.shutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("in-flight requests cut at the end of the grace period", "err", err)
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// listen binds --listen and refuses an address other hosts can reach
// unless --allow-remote was given.
func listen(cfg *serveConfig, log *slog.Logger) (net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.listen)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("--listen %s: the address is in use (another hpatch-router?); stop that one, or pick another port and give Codex the same (hpatch-router codex-config --listen ADDR)", cfg.listen)
	}
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", cfg.listen, err)
	}
	if err := access.CheckListen(ln.Addr()); err != nil {
		if !cfg.allowRemote {
			ln.Close()
			// Named as given: Go reports 0.0.0.0 bound as [::].
			return nil, fmt.Errorf("--listen %s accepts connections from other hosts, whose users cannot be identified; listen on 127.0.0.1 or [::1], or pass --allow-remote to accept that", cfg.listen)
		}
		log.Warn("--allow-remote: clients on other hosts cannot be identified; anyone who reaches this address can use the router, its dashboard and every thread's retained scripts",
			"listen", ln.Addr().String())
	}
	return ln, nil
}

// newGuard builds the access rules for serve's listener: only this user,
// loopback Host names, and with --allow-remote remote peers and the
// --listen host name.
func newGuard(cfg *serveConfig, log *slog.Logger) *access.Guard {
	opts := []access.Option{access.Logger(log), access.AllowRemote(cfg.allowRemote)}
	if host, _, err := net.SplitHostPort(cfg.listen); err == nil && host != "" {
		opts = append(opts, access.AllowHosts(host))
	}
	return access.New(opts...)
}

// buildHooks is the seam where the worker runtime (package worker) and the
// retained-script store (package retain) are constructed and handed to the
// router. Both live on the runtime root; both are closed on shutdown (the
// runtime removes its snapshot and thread directories, the store its
// artifacts), in reverse order of creation. The runtime holds the root's
// lock, naming addr, from before it touches the root until after the store
// is closed: a second router on the same root refuses to start, naming
// this one, rather than removing at its own shutdown what this one serves
// (it would prepare this router's recent threads, relinked to itself).
func buildHooks(runtimeDir, addr string, log *slog.Logger) ([]router.Option, []io.Closer, error) {
	wr, err := worker.NewRuntime(runtimeDir, worker.WithLogger(log), worker.WithRootLock(addr))
	if err != nil {
		return nil, nil, fmt.Errorf("worker runtime: %w", err)
	}
	closers := []io.Closer{wr}
	store, err := retain.NewStore(runtimeDir, retain.Logger(log))
	if err != nil {
		return nil, closers, fmt.Errorf("retained scripts: %w", err)
	}
	closers = append(closers, store)
	return []router.Option{router.WithRuntime(wr), router.WithScripts(store)}, closers, nil
}

// redactedURL drops user info and query from a URL for logs.
func redactedURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	return strings.TrimRight(c.String(), "?")
}
