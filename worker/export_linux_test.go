package worker

import "time"

// WithClock sets when verifications start, so a test can treat a thread
// directory changed just now as settled.
func WithClock(now func() time.Time) Option { return func(c *runtimeConfig) { c.now = now } }
