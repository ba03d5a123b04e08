package request

import (
	"bytes"
	"sync"
	"testing"
)

func TestRequestRewriterMatchesRewriteRequest(t *testing.T) {
	rr := NewRewriter(4)
	var wg sync.WaitGroup
	for round := 0; round < 3; round++ {
		for _, tc := range captureCases() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				in := readCapture(t, tc.file)
				want, wantInfo, wantErr := rewriteBody(nil, in)
				got, info, err := rewriteBody(rr, in)
				if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) ||
					info.Owned != wantInfo.Owned || info.Namespace != wantInfo.Namespace || info.Rewritten != wantInfo.Rewritten {
					t.Errorf("%s: memoized rewrite differs", tc.file)
				}
			}()
		}
	}
	wg.Wait()
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if len(rr.entries) > 4 {
		t.Fatalf("memo holds %d entries, bound 4", len(rr.entries))
	}
}
