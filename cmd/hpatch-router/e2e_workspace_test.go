package main

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"hpatch-router/router/routertest"
)

// Workspace hpatch through the real Codex CLI in its workspace-write
// sandbox: what the model is told is what the files hold (issue 33 cases
// 5, 6 and 7; issue 35 item 4). Each test sets the workspace up from Go
// (links, modes, owners, extended attributes), plays one turn and reads
// the files' bytes and metadata afterwards.

// hpatchCall is a model `hpatch` call in the functions namespace.
func hpatchCall(callID, input string) *routertest.CustomToolCall {
	return &routertest.CustomToolCall{Name: "hpatch", Namespace: "functions", CallID: callID, ID: "ctc_" + callID, Input: input}
}

// playWorkspaceTurn runs one `codex exec --sandbox workspace-write` turn in
// ws through the router against steps, and returns the upstream's POSTs.
func playWorkspaceTurn(t *testing.T, ws string, steps []routertest.Step) []routertest.Request {
	t.Helper()
	codex := codexBin(t)
	binDir := e2eBins.binDir(t)
	up := routertest.NewUpstream(t, routertest.Scenario{Steps: steps})
	runtimeDir := t.TempDir()
	r := startRouter(t, routerSpec{binDir: binDir, upstream: up.URL(), runtimeDir: runtimeDir})
	home := writeCodexHome(t, configCatalog, r.URL+"/v1")
	run := runCodex(t, codex, home, binDir, runtimeDir, ws, "edit the workspace", "--sandbox", "workspace-write")
	posts := up.Posts()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("codex (exit %d):\n%s", run.ExitCode, run.Output)
			logged := map[string]bool{}
			for _, p := range posts {
				for _, o := range p.FindItems("custom_tool_call_output", "") {
					if id := o.Get("call_id").String(); !logged[id] {
						logged[id] = true
						t.Logf("request %d: output of %s: %q", p.Index, id, routertest.OutputText(o))
					}
				}
			}
		}
	})
	if run.ExitCode != 0 || len(posts) != len(steps) {
		t.Fatalf("codex exit %d with %d requests, want 0 and %d", run.ExitCode, len(posts), len(steps))
	}
	return posts
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// One file, two names (case 5): edits through a symlinked directory and
// through two hard links land in the one file, and the hard links stay
// one file; removing it under its other name is refused naming both.
func TestE2EWorkspaceAliases(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{"d/a.txt": "one\ntwo\nthree\n", "h1.txt": "x\ny\n"})
	if err := os.Symlink("d", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(ws, "h1.txt"), filepath.Join(ws, "h2.txt")); err != nil {
		t.Fatal(err)
	}
	posts := playWorkspaceTurn(t, ws, []routertest.Step{
		{CustomToolCall: hpatchCall("call_al_1", "in d/a.txt\ntype \"one\" \"ONE\"\nin link/a.txt\ntype \"three\" \"THREE\"\n")},
		{CustomToolCall: hpatchCall("call_al_2", "in h1.txt\ntype \"x\" \"X\"\nin h2.txt\ntype \"y\" \"Y\"\n")},
		{CustomToolCall: hpatchCall("call_al_3", "in h1.txt\ntype \"X\" \"x1\"\nin h2.txt\nrm\n")},
		{Message: "aliases done"},
	})
	checkCallOutput(t, posts, callExpect{CallID: "call_al_1", Output: []string{"d/a.txt (also link/a.txt)\n1:"}, NotOutput: []string{"hpatch:"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_al_2", Output: []string{"h1.txt (also h2.txt)\n1:"}, NotOutput: []string{"hpatch:"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_al_3", Output: []string{"hpatch: line 3: h2.txt and h1.txt (line 1) are one file"}})
	if got := readFile(t, filepath.Join(ws, "d/a.txt")); got != "ONE\ntwo\nTHREE\n" {
		t.Errorf("d/a.txt = %q, want both edits", got)
	}
	h1, _ := os.Stat(filepath.Join(ws, "h1.txt"))
	h2, _ := os.Stat(filepath.Join(ws, "h2.txt"))
	if !os.SameFile(h1, h2) {
		t.Error("the hard links h1.txt and h2.txt were split")
	}
	if got := readFile(t, filepath.Join(ws, "h2.txt")); got != "X\nY\n" {
		t.Errorf("h2.txt = %q, want both edits", got)
	}
}

// Two hpatch calls on one file in one response (case 6): the second is
// resolved on top of the first and both are written. When the first does
// not write (a shell call before it changed one of its files), the second
// says so by call instead of blaming an outside change.
func TestE2EWorkspaceTwoCallsInOneResponse(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{"a.txt": "one\ntwo\n", "c.txt": "c\n"})
	posts := playWorkspaceTurn(t, ws, []routertest.Step{
		{Items: []routertest.Item{
			{CustomToolCall: hpatchCall("call_tc_1", "in a.txt\ntype \"one\" \"ONE\"\n")},
			{CustomToolCall: hpatchCall("call_tc_2", "in a.txt\ntype \"two\" \"TWO\"\n")},
		}},
		{Items: []routertest.Item{
			{CustomToolCall: &routertest.CustomToolCall{Name: "shell", Namespace: "functions", CallID: "call_tc_3", ID: "ctc_call_tc_3", Input: "printf 'C\\n' >> c.txt\n"}},
			{CustomToolCall: hpatchCall("call_tc_4", "in a.txt\ntype \"ONE\" \"1\"\nin c.txt\ntype \"c\" \"x\"\n")},
			{CustomToolCall: hpatchCall("call_tc_5", "in a.txt\ntype \"TWO\" \"2\"\n")},
		}},
		{Message: "two calls done"},
	})
	checkCallOutput(t, posts, callExpect{CallID: "call_tc_1", Output: []string{"a.txt\n1:"}, NotOutput: []string{"hpatch:"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_tc_2", Output: []string{"a.txt\n", " TWO\n"}, NotOutput: []string{"hpatch:"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_tc_4", Output: []string{"hpatch: the files of this edit changed after the router checked it"}})
	checkCallOutput(t, posts, callExpect{CallID: "call_tc_5", Output: []string{"hpatch: this edit was checked on top of hpatch call call_tc_4 earlier in this response, which did not write"}})
	if got := readFile(t, filepath.Join(ws, "a.txt")); got != "ONE\nTWO\n" {
		t.Errorf("a.txt = %q, want the first response's two edits only", got)
	}
}

// A rewrite keeps the mode bits (setuid) and the extended attributes
// (case 7). A file whose owner the copy cannot get (running as root, the
// test gives it to uid 4242, which Codex's bubblewrap sandbox does not
// map) is refused with the reason, and stays as it was.
func TestE2EWorkspaceKeepsMetadata(t *testing.T) {
	t.Parallel()
	ws := workspace(t, map[string]string{"run.sh": "#!/bin/sh\necho one\n", "other.sh": "#!/bin/sh\necho other\n"})
	p, other := filepath.Join(ws, "run.sh"), filepath.Join(ws, "other.sh")
	xattr := true
	if err := unix.Setxattr(p, "user.hpatch-e2e", []byte("kept"), 0); errors.Is(err, unix.ENOTSUP) {
		xattr = false
		t.Log("no user.* extended attributes on this file system; not checked")
	} else if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p, other} {
		if err := os.Chmod(f, 0o755|os.ModeSetuid); err != nil {
			t.Fatal(err)
		}
	}
	givenAway := os.Geteuid() == 0
	if givenAway {
		if err := os.Chown(other, 4242, 4243); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(other, 0o755|os.ModeSetuid); err != nil {
			t.Fatal(err)
		}
	}
	steps := []routertest.Step{{CustomToolCall: hpatchCall("call_md_1", "in run.sh\ntype \"echo one\" \"echo ONE\"\n")}}
	if givenAway {
		steps = append(steps, routertest.Step{CustomToolCall: hpatchCall("call_md_2", "in other.sh\ntype \"echo other\" \"echo OTHER\"\n")})
	}
	posts := playWorkspaceTurn(t, ws, append(steps, routertest.Step{Message: "metadata done"}))
	checkCallOutput(t, posts, callExpect{CallID: "call_md_1", Output: []string{"run.sh\n", " echo ONE\n"}, NotOutput: []string{"hpatch:"}})
	if got := readFile(t, p); got != "#!/bin/sh\necho ONE\n" {
		t.Fatalf("run.sh = %q", got)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o755|os.ModeSetuid {
		t.Errorf("mode %v, want %v", fi.Mode(), 0o755|os.ModeSetuid)
	}
	if xattr {
		buf := make([]byte, 16)
		if n, err := unix.Getxattr(p, "user.hpatch-e2e", buf); err != nil || string(buf[:n]) != "kept" {
			t.Errorf("user.hpatch-e2e after the rewrite: %q, %v", buf[:max(n, 0)], err)
		}
	}
	if !givenAway {
		t.Log("not root: the refusal of a file owned by another user is not checked")
		return
	}
	checkCallOutput(t, posts, callExpect{CallID: "call_md_2", Output: []string{"hpatch: cannot write other.sh (hpatch writes a new copy and cannot give it the file's owner uid ", "); nothing was changed"}})
	fi, err = os.Lstat(other)
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 4242 || st.Gid != 4243 || fi.Mode() != 0o755|os.ModeSetuid || readFile(t, other) != "#!/bin/sh\necho other\n" {
		t.Errorf("other.sh changed: owner %d:%d, mode %v, %q", st.Uid, st.Gid, fi.Mode(), readFile(t, other))
	}
}

// `new` writes rows (issue 35 item 4): the last row ends with the VALUE's
// line ending; an empty VALUE is an empty file.
func TestE2EWorkspaceNewFile(t *testing.T) {
	t.Parallel()
	ws := workspace(t, nil)
	posts := playWorkspaceTurn(t, ws, []routertest.Step{
		{CustomToolCall: hpatchCall("call_nf_1", "new src/a.txt\ntype \"alpha\\nbeta\"\nnew src/crlf.txt\ntype \"a\\r\\nb\"\nnew empty.txt\ntype \"\"\n")},
		{Message: "new files done"},
	})
	checkCallOutput(t, posts, callExpect{CallID: "call_nf_1", Output: []string{"src/a.txt (new)\n", "empty.txt (new)\n(empty)\n"}, NotOutput: []string{"hpatch:"}})
	for name, want := range map[string]string{"src/a.txt": "alpha\nbeta\n", "src/crlf.txt": "a\r\nb\r\n", "empty.txt": ""} {
		if got := readFile(t, filepath.Join(ws, name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}
