package router

import (
	"context"
	"io"
	"net/url"
	"strings"
	"testing"

	"hpatch-router/router/request"
	"hpatch-router/router/response"
)

// benchStream is a realistic model turn: reasoning, a streamed message and
// a streamed shell call, then response.completed.
func benchStream() string {
	s := &stream{}
	s.created()
	s.reasoning("rs_1")
	s.event("response.output_item.added", `"output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}`)
	for range 40 {
		s.event("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"some words of the answer "`)
	}
	s.idx = 2
	s.call("ctc_1", "call_bench", "shell", "functions", "#!python3\nimport sys\nfor i in range(3):\n    print(i, sys.argv)\n", 12)
	s.completed()
	return s.String()
}

// BenchmarkSSERewrite is the response rewrite alone over a realistic
// stream (bytes in, bytes out, no network): reasoning, a 40-delta message
// and a 12-delta shell call, with the production translator and an
// in-memory replay store. The reader comes from the router's pool, as
// relaySSE takes it.
func BenchmarkSSERewrite(b *testing.B) {
	in := benchStream()
	rt, err := New(Upstream(mustURL("http://u.invalid")))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	facts := request.Info{Owned: true, Namespace: "functions"}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		w := response.NewStream(response.New(context.Background(), &rt.responseDeps, "bench", facts, response.Turn{}))
		r := rt.sse.Get(strings.NewReader(in))
		out = out[:0]
		for {
			ev, err := r.Next()
			if ev != nil {
				out = w.Handle(ev, out)
			}
			if err == io.EOF {
				break
			}
		}
		rt.sse.Put(r)
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
