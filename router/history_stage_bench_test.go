package router

import (
	"context"
	"strings"
	"testing"

	"hpatch-router/router/history"
	"hpatch-router/router/request"
)

// BenchmarkHistoryStage is the cost the history stage (history.Stage.Apply:
// settle, reconcile and the edits that restore every carrier) adds to
// every request of a thread whose changes are all known (the steady
// state): a conversation of 120 retentions, edits and reruns that all
// ran, every carrier restored. parse is the request's one parse of the
// same body, for scale.
func BenchmarkHistoryStage(b *testing.B) {
	p := newHistoryPlayer(b, 7)
	for range 60 {
		p.request()
		calls := p.newCalls()
		p.respond(calls, p.toldNow())
		p.record(calls, func(int) bool { return true })
	}
	body := []byte(`{"input":[` + strings.Join(p.history, ",") + `]}`)
	req, err := request.Parse(body)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	p.rt.history.Apply(ctx, history.Turn{Thread: historyThread, Req: req}) // the first request after a start reconciles once
	b.Logf("%d calls, %d bytes", len(req.ExecCalls), len(body))
	b.Run("apply", func(b *testing.B) {
		for b.Loop() {
			p.rt.history.Apply(ctx, history.Turn{Thread: historyThread, Req: req})
		}
	})
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := request.Parse(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
