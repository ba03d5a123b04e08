package response_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hpatch-router/privname"
	"hpatch-router/router/response"
	"hpatch-router/workspace"
)

// A workspace hpatch call (`in PATH`) is resolved against the files as the
// response's earlier workspace calls leave them, in the workspace the
// request's turn declared, and answered with a carrier that runs
// hpatch-write in Codex's sandbox with the digest it must find, the turn's
// cwd and roots and the earlier calls on the same file (--after). The
// router writes nothing and stages nothing; the runtime is ensured once.
func TestStreamWorkspaceHpatchCalls(t *testing.T) {
	ws := t.TempDir()
	files := map[string]string{"a.txt": "one\ntwo\n", "b.txt": "b\n"}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := newRig(t)
	turn := response.Turn{Env: workspace.Env{Cwd: ws, Roots: []string{ws}}, Sandbox: "workspace-write"}
	s := response.New(t.Context(), r.deps, thread, owned, turn)
	got := respond(t, s,
		modelCall{"hpatch", "call_1", "in a.txt\ntype \"one\" \"ONE\""},
		modelCall{"hpatch", "call_2", "in a.txt\ntype \"ONE\" \"uno\""},
		modelCall{"hpatch", "call_3", "in b.txt\ntype \"b\" \"B\""},
		modelCall{"hpatch", "call_4", "in ../outside.txt\ntype \"x\" \"y\""},
		modelCall{"hpatch", "call_5", "in a.txt\ntype \"absent\" \"y\""})

	for _, id := range []string{"call_1", "call_2", "call_3"} {
		c := got[id]
		for _, arg := range []string{privname.HpatchWrite, "--expect", "--cwd", "--root", ws} {
			if !strings.Contains(c, arg) {
				t.Errorf("carrier of %s lacks %q: %s", id, arg, c)
			}
		}
		if after := strings.Contains(c, "--after") && strings.Contains(c, "call_1:"); after != (id == "call_2") {
			t.Errorf("carrier of %s names an earlier call: %v: %s", id, after, c)
		}
	}
	for _, id := range []string{"call_4", "call_5"} {
		if text, ok := response.PrintedText(got[id]); !ok || !strings.HasPrefix(text, "hpatch: ") {
			t.Errorf("refused %s: carrier %s", id, got[id])
		}
	}
	var codes []string
	for _, e := range r.obs.rejections {
		codes = append(codes, e.Code+" "+e.CallID)
	}
	if !slices.Equal(codes, []string{"hpatch call_4", "hpatch call_5"}) {
		t.Fatalf("rejections %+v", r.obs.rejections)
	}
	if r.j.count("ensure thread-1") != 1 || r.j.count("metric hpatch") != 5 || r.j.count("metric rejection hpatch") != 2 ||
		len(r.scripts.edits) != 0 || r.j.count("carrier") != 0 {
		t.Fatalf("deps asked %q", r.j.calls)
	}
	for name, data := range files {
		if b, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(b) != data {
			t.Fatalf("%s is %q (%v) after the response", name, b, err)
		}
	}
}

// A workspace call whose turn declared no workspace, or whose runtime
// cannot be prepared, prints why; the runtime's failure quotes no script,
// so the observers read the diagnostic itself.
func TestStreamWorkspaceHpatchRefused(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	failed := "hpatch: the router could not prepare this thread's runtime: disk full"
	cases := []struct {
		name   string
		turn   response.Turn
		ensure error
		text   string // what the carrier prints
		reason string // what the observers read
	}{
		{name: "no workspace declared", text: "hpatch: line 1: this turn declares no workspace root, so hpatch cannot edit workspace files; edit them with the shell",
			reason: scriptFree("hpatch: line 1: ")},
		{name: "runtime fails", turn: response.Turn{Env: workspace.Env{Cwd: ws, Roots: []string{ws}}}, ensure: errors.New("disk full"), text: failed, reason: failed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.runtime.err = c.ensure
			s := response.New(t.Context(), r.deps, thread, owned, c.turn)
			got := respond(t, s, modelCall{"hpatch", "call_1", "in a.txt\ntype \"one\" \"ONE\""})
			want := []response.RejectionEvent{{Thread: thread, CallID: "call_1", Code: "hpatch", Reason: c.reason, Detail: c.text}}
			if got["call_1"] != response.PrintCarrier(c.text) || !slices.Equal(r.obs.rejections, want) {
				t.Fatalf("carrier %s, rejections %+v", got["call_1"], r.obs.rejections)
			}
		})
	}
}
