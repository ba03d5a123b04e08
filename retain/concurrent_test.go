package retain

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestConcurrentUse runs retention, reads, edits and real expiry timers at
// once (run with -race), then Close; afterwards no artifact is left.
func TestConcurrentUse(t *testing.T) {
	e := newEnv(t, "T1", "T2")
	s, err := NewStore(e.runtime, TTL(15*time.Millisecond))
	must(t, err)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			thread := "T" + strconv.Itoa(g%2+1)
			for i := 0; i < 30; i++ {
				id := "c" + strconv.Itoa(g) + "_" + strconv.Itoa(i)
				ref, err := s.Retain(ctx, thread, id, "a\nb\n")
				if err != nil {
					t.Errorf("Retain: %v", err)
					return
				}
				// Expiry may win the race; any other error is a bug.
				if _, err := s.Resolve(ctx, thread, ref); err != nil && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("Resolve: %v", err)
				}
				patch := cite(t, "in "+ref+"\ntype {1} \"A\"\n", "a\nb\n")
				s.Apply(ctx, thread, patch)
				if i%10 == 0 {
					time.Sleep(10 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	must(t, s.Close())
	for _, th := range []string{"T1", "T2"} {
		entries, err := os.ReadDir(e.scriptsDir(th))
		must(t, err)
		if len(entries) != 0 {
			t.Fatalf("%s: %d entries left after Close", th, len(entries))
		}
	}
}
