package worker

import "time"

// WithClock sets when verifications start, so a test can treat a thread
// directory changed just now as settled.
func WithClock(now func() time.Time) Option { return func(c *runtimeConfig) { c.now = now } }

// WithManualSweep keeps the idle sweep from firing on its own: *sweep is
// set to the sweep, and the test runs it as if its time had come.
func WithManualSweep(sweep *func()) Option {
	return func(c *runtimeConfig) {
		c.afterFunc = func(_ time.Duration, f func()) sweepTimer { *sweep = f; return manualTimer{} }
	}
}

type manualTimer struct{}

func (manualTimer) Stop() bool               { return true }
func (manualTimer) Reset(time.Duration) bool { return true }
