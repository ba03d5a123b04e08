package router

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// statusWriter remembers the status a handler answered with, for the
// debug log's "request done" line. Unwrap keeps http.ResponseController
// (flushes, full duplex) reaching the connection's own writer.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// logRequests wraps w so that the request's status can be logged once
// it is done, only when the debug level is on: the common path keeps
// the connection's writer unwrapped.
func (rt *Router) logRequests(ctx context.Context, w http.ResponseWriter, r *http.Request, path string) (http.ResponseWriter, func()) {
	if !rt.log.Enabled(ctx, slog.LevelDebug) {
		return w, func() {}
	}
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	return sw, func() {
		rt.log.Debug("request done", "method", r.Method, "path", path, "status", sw.status, "elapsed", time.Since(start))
	}
}
