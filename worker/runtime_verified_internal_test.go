//go:build linux

package worker

import (
	"syscall"
	"testing"
	"time"
)

func TestSettledBefore(t *testing.T) {
	changed := time.Unix(1_700_000_000, 500)
	s := dirStatus{ctime: syscall.NsecToTimespec(changed.UnixNano())}
	for _, c := range []struct {
		start time.Time
		want  bool
	}{
		{changed, false},
		{changed.Add(time.Second), false},
		{changed.Add(settleMargin), false},
		{changed.Add(settleMargin + time.Nanosecond), true},
		{changed.Add(time.Hour), true},
		{changed.Add(-time.Hour), false}, // clock set back
	} {
		if got := s.settledBefore(c.start); got != c.want {
			t.Errorf("changed %v, verification from %v: settled=%v, want %v", changed, c.start, got, c.want)
		}
	}
}
