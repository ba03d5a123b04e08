package shebang

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"hpatch-router/internal/testenv"
)

// The node test evaluates rendered carriers as Code Mode would: an async
// function body with `tools` and `text` in scope. The stub exec_command
// records its argument and returns a scripted result; the test proves the
// argument object equals Plan.Args and the projection forwards the complete
// result plus retained/script_ref.

const nodeHarness = `
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
(async () => {
  const out = [];
  for (const c of cases) {
    const calls = [], texts = [];
    const tools = { exec_command: async (a) => { calls.push(a); return c.result; } };
    const text = (s) => { texts.push(s); };
    let error = null;
    try { await new AsyncFunction("tools", "text", c.carrier)(tools, text); }
    catch (e) { error = String(e); }
    out.push({ calls, texts, error });
  }
  process.stdout.write(JSON.stringify(out));
})();
`

type nodeCase struct {
	Carrier string          `json:"carrier"`
	Result  json.RawMessage `json:"result"`
}

type nodeRun struct {
	Calls []json.RawMessage `json:"calls"`
	Texts []string          `json:"texts"`
	Error *string           `json:"error"`
}

func runNode(t *testing.T, cases []nodeCase) []nodeRun {
	t.Helper()
	var runs []nodeRun
	nodeJSON(t, nodeHarness, cases, &runs)
	return runs
}

// nodeJSON runs a node script with in as JSON on stdin and decodes its
// stdout into out. Without node it skips, and fails under CI=true
// (testenv.NeedTool).
func nodeJSON(t *testing.T, harness string, in, out any) {
	t.Helper()
	node := testenv.NeedTool(t, "node")
	script := filepath.Join(t.TempDir(), "harness.js")
	if err := os.WriteFile(script, []byte(harness), 0o600); err != nil {
		t.Fatal(err)
	}
	inb, _ := json.Marshal(in)
	cmd := exec.Command(node, script)
	cmd.Stdin = bytes.NewReader(inb)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(outb, out); err != nil {
		t.Fatalf("node output %q: %v", outb, err)
	}
}

// sameJSON compares two JSON texts as values (the argument object is
// re-serialized by node, so bytes may differ only in spacing).
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func TestNodeCarrierForwardsCompleteResult(t *testing.T) {
	finished := `{"chunk_id":"3b3cfc","wall_time_seconds":0.832204503,"exit_code":0,"original_token_count":223,"output":"hi\n"}`
	running := `{"chunk_id":"8a5ddf","wall_time_seconds":1.000974907,"session_id":79106,"original_token_count":14,"output":"…"}`
	inputs := []string{
		"#!/usr/bin/env python3\nprint('it''s \"q\" \\\\ $x é')\n",
		"rtk shadowtree test . -run='^$'\n",
		"#!params={\"workdir\":\"/tmp\",\"tty\":true,\"yield_time_ms\":1000}\n#!cmd=curl -fsSL URL | {.} | jq\necho </script>\u2028\n",
		"python3 -c 1\nnode -e 2\ncat <<EOF\nx\nEOF\n",
	}
	type expect struct {
		args     []byte
		warnings []string
		want     string // last text() value
	}
	var cases []nodeCase
	var expects []expect
	for _, in := range inputs {
		p, err := Translate(in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Retention{{}, {Retained: true, ScriptRef: "@shell/call_1"}} {
			meta := `,"retained":false}`
			if r.Retained {
				meta = `,"retained":true,"script_ref":"@shell/call_1"}`
			}
			for _, res := range []string{finished, running} {
				cases = append(cases, nodeCase{p.Carrier(r), json.RawMessage(res)})
				expects = append(expects, expect{p.Args, p.Warnings, strings.TrimSuffix(res, "}") + meta})
			}
			// A non-object result is printed unchanged, never as "{}".
			cases = append(cases, nodeCase{p.Carrier(r), json.RawMessage(`"Process exited with code 0\nOutput:\nhi"`)})
			expects = append(expects, expect{p.Args, p.Warnings, "Process exited with code 0\nOutput:\nhi"})
		}
	}
	runs := runNode(t, cases)
	for i, run := range runs {
		e := expects[i]
		if run.Error != nil {
			t.Fatalf("case %d: carrier threw %s\n%s", i, *run.Error, cases[i].Carrier)
		}
		if len(run.Calls) != 1 || !sameJSON(t, run.Calls[0], e.args) {
			t.Errorf("case %d: exec_command got %s, want exactly one call with %s", i, run.Calls, e.args)
		}
		if len(run.Texts) != len(e.warnings)+1 {
			t.Fatalf("case %d: text() calls %q, want %d warnings then the result", i, run.Texts, len(e.warnings))
		}
		for j, w := range e.warnings {
			if run.Texts[j] != w+"\n" {
				t.Errorf("case %d: text %d = %q, want warning %q before the result", i, j, run.Texts[j], w)
			}
		}
		if got := run.Texts[len(run.Texts)-1]; got != e.want {
			t.Errorf("case %d: projection printed %s, want %s", i, got, e.want)
		}
	}
}

func TestNodeRejectionAndNoticeCarriers(t *testing.T) {
	_, rejected := Translate("#!env\nx", Options{})
	js := "// @exec: {\"yield_time_ms\":1000}\nconst r = await tools.exec_command({cmd: \"python3 -c 1\"});\ntext(r.output);"
	rec, err := Translate(js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	annotated, _ := AnnotateExec(js)
	runs := runNode(t, []nodeCase{
		{RejectionCarrier(rejected), json.RawMessage(`null`)},
		{rec.Carrier(Retention{}), json.RawMessage(`{"output":"1\n"}`)},
		{annotated, json.RawMessage(`{"output":"1\n"}`)},
	})
	if r := runs[0]; len(r.Calls) != 0 || len(r.Texts) != 1 || r.Texts[0] != "shell: "+rejected.Error()+"\n" {
		t.Errorf("a rejection carrier must run nothing and print only the diagnostic; got %+v", r)
	}
	if r := runs[1]; len(r.Calls) != 1 || len(r.Texts) != 3 || r.Texts[0] != recoveryNotice+"\n" || !strings.Contains(r.Texts[1], "python -c") || r.Texts[2] != "1\n" {
		t.Errorf("a recovered carrier must print the notice, then the nested warning, then run the script unchanged; got %+v", r)
	}
	if r := runs[2]; len(r.Calls) != 1 || len(r.Texts) != 2 || r.Texts[0] != execNotice+"\n" || r.Texts[1] != "1\n" {
		t.Errorf("an annotated exec call must print one notice and run unchanged; got %+v", r)
	}
}
