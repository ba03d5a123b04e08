package router

import (
	"context"
	"strconv"
	"testing"

	"hpatch-router/internal/testenv"
	"hpatch-router/router/history"
	"hpatch-router/router/request"
)

// BenchmarkReplayRestore is the parse and replay restore of a thread's
// 1 MiB conversation whose exec calls the store knows (every other one), sent
// again as it is, as Codex does when it retries or the next request only
// adds to it.
func BenchmarkReplayRestore(b *testing.B) {
	body := synthetic1MB(b)
	rt := newTestRouter(b)
	carrier := "const r = await tools.exec_command({cmd: \"ls -la\"});\ntext(JSON.stringify(r));"
	for i := 0; i < 400; i += 2 {
		id := "call_" + strconv.Itoa(i)
		if err := rt.replay.Put("01a23618-3154-7773-b8cb-233739215f5f", id, carrier, []byte(`{"type":"custom_tool_call","call_id":"`+id+`","name":"shell","input":"ls"}`)); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	testenv.LoopCPU(b, func() {
		req, err := request.Parse(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := rt.history.Apply(context.Background(), history.Turn{Thread: "01a23618-3154-7773-b8cb-233739215f5f", Req: req}); err != nil {
			b.Fatal(err)
		}
	})
}
