package history

import (
	"bytes"
	"errors"
	"testing"

	"hpatch-router/router/request"
)

func TestRouterShaped(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  bool
	}{
		{"the router's shell carrier", shellCarrier("c-1", "-e python3 'print(1)'", true), true},
		{"an unretained shell carrier", shellCarrier("c-1", "-e sh 'ls'", false), true},
		{"a pragma before the call", "// @exec: {\"yield_time_ms\":1000}\n" +
			`const result = await tools.exec_command({"cmd":"shell -e sh 'ls'"});`, true},
		{"the model's own exec_command", `const r = await tools.exec_command({cmd: "ls -la"});` + "\ntext(JSON.stringify(r));", false},
		{"exec_command of another command", `await tools.exec_command({"cmd":"shellcheck x.sh"});`, false},
		{"the helper with spaced JSON", `await tools.exec_command({ "cmd": "shell -e sh 'ls'" });`, false},
		{"the helper through another tool", `await tools.run({"cmd":"shell -e sh 'ls'"});`, false},
		{"a print carrier", `text("@shell/c-1 ...");`, false},
		{"empty", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := routerShaped(tc.input); got != tc.want {
				t.Errorf("routerShaped(%q) = %v, want %v", tc.input, got, tc.want)
			}
		})
	}
}

// splice is body with edits applied.
func splice(body []byte, edits []request.Edit) []byte {
	var out []byte
	for _, piece := range request.Splice(body, edits) {
		out = append(out, piece...)
	}
	return out
}

func TestRestoreEditsReplaceEachKnownCarrierAtItsSpan(t *testing.T) {
	h := newHarness(t)
	shell := shellCarrier("c-1", "-e python3 'print(1)'", true)
	shellItem := modelCall("c-1", "shell", "#!python3\nprint(1)\n")
	patch := `text("@shell/c-1\n2:ab print(2)\n");`
	patchItem := modelCall("c-2", "hpatch", "in @shell/c-1\ntype 2:ab \"print(2)\"")
	// A call sent again with another body: each carrier restores to the
	// item it stood for.
	again := shellCarrier("c-1", "-e python3 'print(3)'", true)
	againItem := modelCall("c-1", "shell", "#!python3\nprint(3)\n")
	h.put(t, "c-1", shell, shellItem)
	h.put(t, "c-2", patch, patchItem)
	h.put(t, "c-1", again, againItem)
	own := `const r = await tools.exec_command({cmd: "ls"});`

	items := func(shell, patch, again string) []byte {
		return requestBody(
			`{"type":"message","role":"user","content":[{"type":"input_text","text":"exec_command"}]}`,
			shell, callOutput("c-1", ranJSON),
			execCall("c-own", own), callOutput("c-own", ranJSON),
			patch, callOutput("c-2", `[{"type":"input_text","text":"@shell/c-1"}]`),
			again, callOutput("c-1", ranJSON),
		)
	}
	body := items(execCall("c-1", shell), execCall("c-2", patch), execCall("c-1", again))
	edits, err := h.apply(t, body, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) != 3 {
		t.Fatalf("got %d edits, want 3 (the model's own exec stays)", len(edits))
	}
	if got, want := splice(body, edits), items(shellItem, patchItem, againItem); !bytes.Equal(got, want) {
		t.Errorf("restored body\n%s\nwant\n%s", got, want)
	}
	for _, e := range edits {
		if !bytes.HasPrefix(body[e.Start:e.End], []byte(`{"type":"custom_tool_call","name":"exec"`)) || body[e.End-1] != '}' {
			t.Errorf("edit spans %q, not one exec item", body[e.Start:e.End])
		}
	}
	if n := h.metrics.count("restored"); n != 3 {
		t.Errorf("restored counted %d, want 3", n)
	}
	if n := h.metrics.count("unrestorable"); n != 0 {
		t.Errorf("unrestorable counted %d for the model's own exec", n)
	}
}

func TestRestoreEditsMismatchRefusesTheRequest(t *testing.T) {
	h := newHarness(t)
	shell := shellCarrier("c-1", "-e python3 'print(1)'", true)
	h.put(t, "c-1", shell, modelCall("c-1", "shell", "#!python3\nprint(1)\n"))
	h.put(t, "c-2", shellCarrier("c-2", "-e sh 'ls'", false), modelCall("c-2", "shell", "ls"))
	body := requestBody(
		execCall("c-1", shell), callOutput("c-1", ranJSON),
		// c-2 is known, but not with this carrier.
		execCall("c-2", shellCarrier("c-2", "-e sh 'ls -l'", false)), callOutput("c-2", ranJSON),
	)
	edits, err := h.apply(t, body, false)
	var mismatch *MismatchError
	if !errors.As(err, &mismatch) || mismatch.CallID != "c-2" {
		t.Fatalf("Apply = %v, %v; want a *MismatchError of c-2", edits, err)
	}
	if edits != nil {
		t.Errorf("a refused request returned edits: %v", edits)
	}
	if CodeReplayMismatch != "replay_mismatch" {
		t.Errorf("CodeReplayMismatch = %q; a published code does not change", CodeReplayMismatch)
	}
	if h.metrics.count("mismatch") != 1 || h.metrics.count("restored") != 0 {
		t.Errorf("metrics %v; want one mismatch and nothing restored", h.metrics.replay)
	}
	// Judged afresh: the same request is refused again.
	if _, err := h.apply(t, body, false); !errors.As(err, &mismatch) || h.metrics.count("mismatch") != 2 {
		t.Errorf("the second request: %v, %d mismatches; want refused again", err, h.metrics.count("mismatch"))
	}
}

func TestRestoreEditsUnrestorableCarrierIsCountedOnce(t *testing.T) {
	h := newHarness(t)
	lost := shellCarrier("c-lost", "-e python3 'print(1)'", false)
	body := requestBody(
		execCall("c-lost", lost), callOutput("c-lost", ranJSON),
		execCall("c-own", `const r = await tools.exec_command({cmd: "ls"});`),
	)
	for range 2 {
		edits, err := h.apply(t, body, false)
		if edits != nil || err != nil {
			t.Fatalf("Apply = %v, %v; a carrier without entry is sent as it is", edits, err)
		}
	}
	if n := h.metrics.count("unrestorable"); n != 1 {
		t.Errorf("unrestorable counted %d over two requests, want 1", n)
	}
	if len(h.metrics.replay) != 1 {
		t.Errorf("metrics %v; want only one unrestorable", h.metrics.replay)
	}
}

func TestRestoreEditsRefuseAnOriginalThatIsNotJSON(t *testing.T) {
	h := newHarness(t)
	shell := shellCarrier("c-1", "-e python3 'print(1)'", false)
	h.put(t, "c-1", shell, `{"type":"custom_tool_call",`)
	edits, err := h.apply(t, requestBody(execCall("c-1", shell)), false)
	var reqErr *request.Error
	if !errors.As(err, &reqErr) || reqErr.Code != request.CodeInvalidJSON {
		t.Fatalf("Apply = %v, %v; want a *request.Error %s", edits, err, request.CodeInvalidJSON)
	}
	if edits != nil || h.metrics.count("restored") != 0 {
		t.Errorf("edits %v, restored %d; want none", edits, h.metrics.count("restored"))
	}
}
