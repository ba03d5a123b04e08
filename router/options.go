package router

import (
	"errors"
	"fmt"
	"hpatch-router/plugins/registry"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Mode selects what the router does to the traffic it forwards.
type Mode string

const (
	// ModeHPatch rewrites Code Mode requests (inject `shell`/`hpatch`) and
	// replaces the model's calls to them with exec carriers.
	ModeHPatch Mode = "hpatch"
	// ModePassthrough forwards every request and response unchanged.
	ModePassthrough Mode = "passthrough"
)

// ParseMode accepts "hpatch" or "passthrough".
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeHPatch, ModePassthrough:
		return m, nil
	}
	return "", fmt.Errorf("mode %q is neither %q nor %q", s, ModeHPatch, ModePassthrough)
}

// Defaults used when the matching Option is not given.
const (
	DefaultResponseStartTimeout = 2 * time.Minute
	DefaultStreamIdleTimeout    = 5 * time.Minute
	DefaultMaxRequestBody       = 64 << 20
	DefaultMaxRequestMemory     = 256 << 20
	defaultMaxEventSize         = 32 << 20
)

// Option configures a Router (see New).
type Option func(*config) error

type config struct {
	upstream             *url.URL
	mode                 Mode
	logger               *slog.Logger
	stateDir             string
	runtime              Runtime
	scripts              Scripts
	responseStartTimeout time.Duration
	streamIdleTimeout    time.Duration
	maxRequestBody       int64
	maxRequestMemory     int64
	maxEventSize         int
	transport            http.RoundTripper
	observers            observerSet // see WithObserver
	tools                ToolSource  // declared tools (Tools)

	// The seam for tests and for the package this one is built with.
	translator translator
}

// Upstream is the model API base URL; `/v1/<rest>` is forwarded to
// `<upstream>/<rest>`. Required.
func Upstream(u *url.URL) Option {
	return func(c *config) error {
		if u == nil || u.Scheme == "" || u.Host == "" {
			return errors.New("upstream URL needs a scheme and a host")
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return fmt.Errorf("upstream scheme %q is not http or https", u.Scheme)
		}
		cp := *u
		c.upstream = &cp
		return nil
	}
}

// WithMode selects ModeHPatch (the default) or ModePassthrough.
func WithMode(m Mode) Option {
	return func(c *config) error {
		if _, err := ParseMode(string(m)); err != nil {
			return err
		}
		c.mode = m
		return nil
	}
}

// Logger sets the structured logger (default: slog.Default()).
func Logger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// StateDir is where the durable replay store keeps one file per thread. An
// empty dir (the default) keeps replay mappings in memory only, so they do
// not survive a restart.
func StateDir(dir string) Option {
	return func(c *config) error { c.stateDir = dir; return nil }
}

// WithRuntime sets the worker runtime hook (nil: no runtime preparation).
func WithRuntime(r Runtime) Option {
	return func(c *config) error { c.runtime = r; return nil }
}

// WithScripts sets the retained-script store (nil: nothing is retained and
// `hpatch` calls get a diagnostic).
func WithScripts(s Scripts) Option {
	return func(c *config) error { c.scripts = s; return nil }
}

// ResponseStartTimeout bounds the wait for the upstream response headers;
// past it the client gets a 504 OpenAI-shaped error.
func ResponseStartTimeout(d time.Duration) Option {
	return func(c *config) error { return positive("response start timeout", d, &c.responseStartTimeout) }
}

// StreamIdleTimeout bounds the silence between two reads of an upstream
// body; past it the stream is ended (Codex sees no response.completed and
// retries).
func StreamIdleTimeout(d time.Duration) Option {
	return func(c *config) error { return positive("stream idle timeout", d, &c.streamIdleTimeout) }
}

// MaxRequestBody bounds request bodies the router reads (413 beyond it).
func MaxRequestBody(n int64) Option {
	return func(c *config) error { return positive("max request body", n, &c.maxRequestBody) }
}

// MaxRequestMemory bounds the request body bytes held in memory at once
// across all requests: a body read whole to be rewritten counts once, as
// the size of the buffer it is read into (it is parsed in place, and the
// restore and the rewrite send their edits as pieces between its bytes,
// never a copy); a request that would exceed the bound gets 503 before its
// body is read. It must be at least MaxRequestBody (CheckRequestBounds).
func MaxRequestMemory(n int64) Option {
	return func(c *config) error { return positive("max request memory", n, &c.maxRequestMemory) }
}

// CheckRequestBounds is the rule the two request bounds must keep: the
// memory bound must hold the largest body, or such a body could never be
// rewritten. New applies it, and so does serve to its flags.
func CheckRequestBounds(maxBody, maxMemory int64) error {
	if maxMemory < maxBody {
		return fmt.Errorf("the request memory bound (%d bytes) is below the largest request body (%d bytes), so such a body could never be rewritten; raise it", maxMemory, maxBody)
	}
	return nil
}

// withMaxEventSize bounds one SSE event of a rewritten stream (tests
// shrink it; serve keeps defaultMaxEventSize).
func withMaxEventSize(n int) Option {
	return func(c *config) error { return positive("max event size", n, &c.maxEventSize) }
}

// Transport replaces the upstream round tripper (default: a clone of
// http.DefaultTransport with transparent compression off, so bodies pass
// through as the upstream sent them).
func Transport(rt http.RoundTripper) Option {
	return func(c *config) error { c.transport = rt; return nil }
}

func positive[T int | int64 | time.Duration](what string, v T, dst *T) error {
	if v <= 0 {
		return fmt.Errorf("%s must be positive, got %v", what, v)
	}
	*dst = v
	return nil
}

// ToolSource gives the declared tools in service; the router reads it
// once per request. Package registry's Registry implements it.
type ToolSource interface {
	Current() *registry.Set
}

// Tools makes the router offer src's tools (none without it, and none in
// passthrough mode).
func Tools(src ToolSource) Option {
	return func(c *config) error {
		c.tools = src
		return nil
	}
}

// WithObserver adds an Observer of shell calls and rejections. It may be
// given more than once; every observer sees every event.
func WithObserver(o Observer) Option {
	return func(c *config) error {
		if o == nil {
			return errors.New("observer must not be nil")
		}
		return c.observers.add(o)
	}
}

// WithObserverBodies lets observers see script bodies (CallEvent.Body).
// Off by default: bodies may hold anything the model wrote.
func WithObserverBodies(on bool) Option {
	return func(c *config) error { c.observers.bodies = on; return nil }
}
