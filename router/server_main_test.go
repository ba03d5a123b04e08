package router

import (
	"context"
	"testing"

	"go.uber.org/goleak"
)

// ctxT keeps test fakes' signatures short.
type ctxT = context.Context

// TestMain fails the package's tests when any goroutine outlives them
// (upstream requests, idle timers, stream relays).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
