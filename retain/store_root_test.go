package retain

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRestoreAfterStorageRemoved (issue 33 case 3): the runtime root, or a
// thread's directory alone, is removed while the router runs and the
// worker runtime makes it again. Restore then writes the journaled script
// back (the store follows a recreated root, and forgets what it wrote in
// the directory that is gone, with its expiry timer). A root made again
// that group or others can write is refused, and nothing is written.
func TestRestoreAfterStorageRemoved(t *testing.T) {
	for _, tc := range []struct {
		name    string
		remove  func(e *env)
		want    int
		wantLog string
	}{
		{name: "runtime root", want: 1, wantLog: "follow the recreated runtime root", remove: func(e *env) {
			must(t, os.RemoveAll(e.runtime))
			must(t, os.Mkdir(e.runtime, 0o700))
			e.prepare("T1")
		}},
		{name: "thread directory", want: 1, wantLog: "thread storage changed", remove: func(e *env) {
			must(t, os.RemoveAll(e.threadDir("T1")))
			e.prepare("T1")
		}},
		{name: "root made again writable by others", want: 0, wantLog: "refuses", remove: func(e *env) {
			must(t, os.RemoveAll(e.runtime))
			must(t, os.Mkdir(e.runtime, 0o700))
			must(t, os.Chmod(e.runtime, 0o777))
			e.prepare("T1")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "T1")
			now := time.Unix(10000, 0)
			e.store.now = func() time.Time { return now }
			hist := restoreHistory(t, now.Add(-40*time.Minute))[:1]
			if n := e.store.Restore(context.Background(), "T1", hist); n != 1 {
				t.Fatalf("first restore wrote %d scripts, want 1", n)
			}
			tc.remove(e)
			if n := e.store.Restore(context.Background(), "T1", hist); n != tc.want {
				t.Fatalf("restore after the removal wrote %d scripts, want %d\n%s", n, tc.want, e.logs)
			}
			if tc.want > 0 {
				if got := e.read("T1", "call_r"); got != stageBody {
					t.Errorf("restored %q, want %q", got, stageBody)
				}
				if n := e.clock.live(); n != 1 {
					t.Errorf("%d expiry timers, want 1 (the gone script's stopped)", n)
				}
			}
			if !strings.Contains(e.logs.String(), tc.wantLog) {
				t.Errorf("logs lack %q:\n%s", tc.wantLog, e.logs)
			}
		})
	}
}
