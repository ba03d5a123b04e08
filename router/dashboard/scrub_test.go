package dashboard

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hpatch-router/ident"
	"hpatch-router/retain"
	"hpatch-router/router"
	"hpatch-router/router/routertest"
)

// planted is a script line the tests look for in everything the dashboard
// serves.
const planted = "PLANTED-7f3a"

// TestNoScriptTextWithoutBodies drives every path by which script text
// could reach the dashboard — a retained call's body, a translation
// diagnostic quoting a shebang field, an hpatch stale-row diagnostic
// quoting the retained line, an interpreter path — and looks for the
// planted line in /api/summary, in every /events frame and in the page.
// With bodies enabled the same run shows it (the test can see it).
func TestNoScriptTextWithoutBodies(t *testing.T) {
	for _, bodies := range []bool{false, true} {
		t.Run(map[bool]string{false: "bodies off", true: "bodies on"}[bodies], func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ident.ThreadDirName(sessionThread)), 0o700); err != nil {
				t.Fatal(err)
			}
			store, err := retain.NewStore(root, retain.Logger(slog.New(slog.DiscardHandler)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			call := func(id, input string) routertest.Step {
				return routertest.Step{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: id, Input: input}}
			}
			steps := []routertest.Step{
				call("call_keep", "#!/usr/bin/env python3\nprint('"+planted+"')\n"),
				call("call_bad_env", "#!/usr/bin/env -"+planted+" python3\nprint(1)\n"),
				{CustomToolCall: &routertest.CustomToolCall{Name: "hpatch", Namespace: "functions", CallID: "call_stale",
					Input: "in @shell/call_keep\ntype 2:0000 \"print(2)\"\n"}},
				call("call_path", "#!/opt/"+planted+"/bin/python3\nprint(1)\n"),
			}
			s := newCodexSession(t, steps, bodies, router.WithScripts(store))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, events := openEvents(t, ctx, s.base)
			frames := []string{events.next(t).data}
			for range steps {
				if err := s.turn(ctx); err != nil {
					t.Fatal(err)
				}
			}
			for len(frames) < 1+len(steps) {
				if ev := events.next(t); ev.name != ":" {
					frames = append(frames, ev.name+" "+ev.data)
				}
			}
			outputs := map[string]string{"/api/summary": get(t, s.base+"/api/summary"), "/": get(t, s.base+"/")}
			for i, f := range frames {
				outputs["/events frame "+string(rune('0'+i))] = f
			}
			sum := s.dash.Summary()
			if sum.Totals.Calls != 2 || sum.Totals.Rejections != 2 {
				t.Fatalf("totals %+v: want 2 calls and 2 rejections (each rejected call once)", sum.Totals)
			}
			if bodies {
				if !strings.Contains(outputs["/api/summary"], planted) {
					t.Fatal("bodies on: the summary does not show the planted line")
				}
				return
			}
			for name, out := range outputs {
				if i := strings.Index(out, planted); i >= 0 {
					t.Errorf("%s shows the planted line: …%s…", name, out[max(0, i-120):i+len(planted)])
				}
			}
		})
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}
