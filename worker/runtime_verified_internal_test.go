//go:build linux

package worker

import (
	"syscall"
	"testing"
	"time"
)

func TestSettledBefore(t *testing.T) {
	for _, c := range []struct {
		changed time.Time
		after   time.Duration // the verification starts this long after the change
		want    bool
	}{
		{time.Unix(1_700_000_000, 500), 0, false},
		{time.Unix(1_700_000_000, 500), settleMarginFracNs, false},
		{time.Unix(1_700_000_000, 500), settleMarginFracNs + time.Nanosecond, true},
		{time.Unix(1_700_000_000, 500), time.Hour, true},
		{time.Unix(1_700_000_000, 500), -time.Hour, false}, // clock set back
		// Whole seconds: maybe a file system that keeps no fraction.
		{time.Unix(1_700_000_000, 0), time.Second, false},
		{time.Unix(1_700_000_000, 0), settleMargin, false},
		{time.Unix(1_700_000_000, 0), settleMargin + time.Nanosecond, true},
	} {
		s := dirStatus{ctime: syscall.NsecToTimespec(c.changed.UnixNano())}
		if got := s.settledBefore(c.changed.Add(c.after)); got != c.want {
			t.Errorf("changed %v, verification %v later: settled=%v, want %v", c.changed, c.after, got, c.want)
		}
	}
}
