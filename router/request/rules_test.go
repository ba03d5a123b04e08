package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"hpatch-router/jsonline"
	"hpatch-router/plugins"
)

// execDesc is a small owner description with the parts the rewrite edits.
const execDesc = "Run JavaScript\n- Nested tools are on the global `tools` object, for example `await tools.exec_command(...)`. Names are identifiers.\n\n### `exec_command`\nRuns a command.\n\nexec tool declaration:\n```ts\ndeclare const tools: { exec_command(args: {\n  // Shell command to execute.\n  cmd: string;\n  // Working directory.\n  workdir?: string;\n  tty?: boolean;\n}): Promise<unknown>; };\n```\n\n### `view_image`\nView an image."

// shellCommandDesc is an owner description of a third-party client whose
// nested command tool is shell_command, not exec_command (issue 35 item 5).
const shellCommandDesc = "Run JavaScript\n- Nested tools are on the global `tools` object, for example `await tools.shell_command(...)`.\n\n### `shell_command`\nRuns a command.\n\n```ts\ndeclare const tools: { shell_command(args: {\n  command: string;\n}): Promise<unknown>; };\n```\n\n### `view_image`\nView an image."

// rewriteBody is Parse and rw.Rewrite of body (rw nil: no memo; no
// declared tools), the pieces joined; a body without an owner comes back
// as the same slice, as the router sends it.
func rewriteBody(rw *Rewriter, body []byte) ([]byte, Info, error) {
	req, err := Parse(body)
	if err != nil {
		return nil, Info{}, err
	}
	out, info, err := rw.Rewrite(req, nil, nil)
	if err != nil {
		return nil, info, err
	}
	if !info.Owned {
		if len(out) != 1 || len(out[0]) != len(body) {
			return nil, info, fmt.Errorf("an unowned body came back as %d pieces", len(out))
		}
		return body, info, nil
	}
	return bytes.Join(out, nil), info, nil
}

func execTool(desc string) string {
	return `{"type":"custom","name":"exec","description":` + string(jsonline.AppendSerdeString(nil, desc)) + `,"format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}`
}

func ns(name string, tools ...string) string {
	return `{"type":"namespace","name":"` + name + `","description":"","tools":[` + strings.Join(tools, ",") + `]}`
}

func item(id string, tools ...string) string {
	return `{"type":"additional_tools","id":"` + id + `","role":"developer","tools":[` + strings.Join(tools, ",") + `]}`
}

func req(top string, items ...string) []byte {
	b := `{"model":"m","stream":true`
	if top != "" {
		b += `,"tools":[` + top + `]`
	}
	items = append(items, `{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`)
	b += `,"input":[` + strings.Join(items, ",") + `],"prompt_cache_key":"t"}`
	return []byte(b)
}

const (
	waitTool   = `{"type":"function","name":"wait","description":"Waits.","strict":false,"parameters":{"type":"object","properties":{}}}`
	collabNS   = `{"type":"namespace","name":"collaboration","description":"Sub-agents.","tools":[{"type":"function","name":"spawn_agent","description":"Spawn.","parameters":{"type":"object"}}]}`
	shellFunc  = `{"type":"function","name":"shell","description":"mine","parameters":{"type":"object"}}`
	hpatchFunc = `{"type":"custom","name":"hpatch","description":"mine"}`
)

func TestRequestRules(t *testing.T) {
	tests := []struct {
		rule      string
		body      []byte
		code      string // expected error code, "" for success
		owned     bool
		namespace string
		names     []string
		rewritten int
	}{
		{"A13: functions namespace owner", req("", item("at_1", ns("functions", execTool(execDesc), waitTool), collabNS)), "", true, "functions", []string{"workdir", "tty"}, 1},
		{"A13: flat owner (0.144-0.146)", req("", item("at_1", execTool(execDesc), waitTool, collabNS)), "", true, "", []string{"workdir", "tty"}, 1},
		{"A13: every additional_tools item is rewritten", req("", item("at_1", ns("functions", execTool(execDesc))), item("at_2", ns("functions", execTool(execDesc)))), "", true, "functions", []string{"workdir", "tty"}, 2},
		{"A13: latest definition gives namespace and shape", req("", item("at_1", ns("functions", execTool(execDesc))), item("at_2", execTool("### `exec_command`\n- `cmd` (string): command\n- `tty` (bool): PTY\n"))), "", true, "", []string{"tty"}, 2},
		{"A13: owner without shape keeps base shell description", req("", item("at_1", ns("functions", execTool("Run JavaScript.\n\n### `exec_command`\nRuns a command.")))), "", true, "functions", nil, 1},
		// Issue 35 item 5: carriers call tools.exec_command, so an exec
		// whose description offers none is no owner.
		{"§3: exec offering shell_command instead passes unchanged", req("", item("at_1", ns("functions", execTool(shellCommandDesc)))), "", false, "", nil, 0},
		{"§3: exec naming no command tool passes unchanged", req("", item("at_1", ns("functions", execTool("Run JavaScript.")))), "", false, "", nil, 0},
		{"§3: the latest exec definition without exec_command wins", req("", item("at_1", ns("functions", execTool(execDesc))), item("at_2", ns("functions", execTool(shellCommandDesc)))), "", false, "", nil, 0},
		{"§3: a mention of exec_command_v2 is not exec_command", req("", item("at_1", ns("functions", execTool("Run JavaScript, e.g. `await tools.exec_command_v2({})`.")))), "", false, "", nil, 0},
		{"§3: exec in another namespace is no owner", req("", item("at_1", ns("other", execTool(execDesc)))), "", false, "", nil, 0},
		{"§3: function-typed exec is no owner", req("", item("at_1", ns("functions", `{"type":"function","name":"exec","parameters":{}}`))), "", false, "", nil, 0},
		{"§3: no input passes unchanged", []byte(`{"model":"m","instructions":"x"}`), "", false, "", nil, 0},
		{"§3: top-level tools without exec pass unchanged", req(waitTool), "", false, "", nil, 0},
		{"A14: top-level exec rejects", req(execTool(execDesc)), CodeUnsupportedToolLayout, false, "", nil, 0},
		{"A14: top-level functions.exec rejects", req(`{"type":"custom","name":"functions.exec"}`), CodeUnsupportedToolLayout, false, "", nil, 0},
		{"A14: top-level functions namespace with exec rejects", req(ns("functions", execTool(execDesc))), CodeUnsupportedToolLayout, false, "", nil, 0},
		{"A14: top-level exec rejects even with an additional_tools owner", req(execTool(execDesc), item("at_1", ns("functions", execTool(execDesc)))), CodeUnsupportedToolLayout, false, "", nil, 0},
		{"A14: additional_tools entry functions.exec rejects", req("", item("at_1", `{"type":"custom","name":"functions.exec","description":"x"}`)), CodeUnsupportedToolLayout, false, "", nil, 0},
		{"A14: flat and namespaced owner in one item rejects", req("", item("at_1", execTool(execDesc), ns("functions", execTool(execDesc)))), CodeDuplicateExecOwner, false, "", nil, 0},
		{"A14: two exec in one namespace rejects", req("", item("at_1", ns("functions", execTool(execDesc), execTool(execDesc)))), CodeDuplicateExecOwner, false, "", nil, 0},
		{"A14: existing shell beside namespaced owner rejects", req("", item("at_1", ns("functions", execTool(execDesc), shellFunc))), CodeToolNameConflict, false, "", nil, 0},
		{"A14: existing hpatch beside flat owner rejects", req("", item("at_1", execTool(execDesc), hpatchFunc)), CodeToolNameConflict, false, "", nil, 0},
		{"A14: shell in an earlier item of the same namespace rejects", req("", item("at_1", ns("functions", shellFunc)), item("at_2", ns("functions", execTool(execDesc)))), CodeToolNameConflict, false, "", nil, 0},
		// Only Responses-Lite requests carry no top-level tools; one that does
		// is for a model without Code Mode (after a switch in the thread, the
		// earlier additional_tools items are history), whose exec calls
		// Codex refuses: no shell is offered.
		{"§3: a namespaced owner beside top-level tools is history", req(waitTool, item("at_1", ns("functions", execTool(execDesc)))), "", false, "", nil, 0},
		{"§3: a flat owner beside top-level tools is history", req(shellFunc, item("at_1", execTool(execDesc))), "", false, "", nil, 0},
		{"§3: an owner beside an empty top-level tools list is history", []byte(strings.Replace(string(req("", item("at_1", ns("functions", execTool(execDesc))))), `"stream":true`, `"stream":true,"tools":[]`, 1)), "", false, "", nil, 0},
		{"A14: shell in a sibling namespace does not collide", req("", item("at_1", ns("functions", execTool(execDesc)), ns("tools2", shellFunc))), "", true, "functions", []string{"workdir", "tty"}, 1},
		{"A14: leading whitespace before the object keeps offsets", append([]byte("\n \t"), req("", item("at_1", ns("functions", execTool(execDesc))))...), "", true, "functions", []string{"workdir", "tty"}, 1},
		{"§3: an owner in an earlier duplicate input key is not read", []byte(`{"input":[` + item("at_1", ns("functions", execTool(execDesc))) + `],"input":[]}`), "", false, "", nil, 0},
		{"§3: the last of duplicate tools keys is read", []byte(`{"tools":[` + execTool(execDesc) + `],"tools":[],"input":[` + item("at_1", ns("functions", execTool(execDesc))) + `]}`), "", false, "", nil, 0},
		{"invalid JSON rejects", []byte(`{"input":[`), CodeInvalidJSON, false, "", nil, 0},
		{"non-object JSON rejects", []byte(`[1,2]`), CodeInvalidJSON, false, "", nil, 0},
		{"empty body rejects", nil, CodeInvalidJSON, false, "", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			out, info, err := rewriteBody(nil, tt.body)
			if tt.code != "" {
				var e *Error
				if !errors.As(err, &e) || e.Code != tt.code {
					t.Fatalf("want 400 %s, got %v", tt.code, err)
				}
				if out != nil {
					t.Fatal("a rejected request must not produce a body")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Owned != tt.owned || info.Namespace != tt.namespace || info.Rewritten != tt.rewritten ||
				strings.Join(info.ParamNames(), ",") != strings.Join(tt.names, ",") {
				t.Fatalf("info = %+v", info)
			}
			if !tt.owned {
				if !bytes.Equal(out, tt.body) {
					t.Fatal("request without owner changed")
				}
				return
			}
			if !json.Valid(out) {
				t.Fatalf("invalid JSON output: %s", out)
			}
			checkRewritten(t, tt.body, out, tt.rewritten)
		})
	}
}

// TestRequestDuplicateInputKeys: of duplicate top-level input keys the
// last is read, as a decoder that keeps the last does.
func TestRequestDuplicateInputKeys(t *testing.T) {
	body := []byte(`{"input":[],"input":[` + item("at_1", ns("functions", execTool(execDesc))) + `]}`)
	out, info, err := rewriteBody(nil, body)
	if err != nil || !info.Owned || !json.Valid(out) || !bytes.Contains(out, []byte(`"name":"shell"`)) {
		t.Fatalf("owner in the last input key: owned %v, %v, %s", info.Owned, err, out)
	}
}

func TestRequestSiblingsByteIdentical(t *testing.T) {
	body := req("", item("at_1", ns("functions", execTool(execDesc), waitTool), collabNS), item("at_2", ns("functions", execTool(execDesc))))
	out, _, err := rewriteBody(nil, body)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ rule, path string }{
		{"A14: sibling namespace byte-identical", "input.0.tools.1"},
		{"A14: sibling direct tool byte-identical", "input.0.tools.0.tools.3"},
		{"A14: other input items byte-identical", "input.2"},
		{"A14: unrelated top-level fields byte-identical", "prompt_cache_key"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			path := tt.path
			if path == "input.0.tools.0.tools.3" {
				// wait moved two places right: shell and hpatch precede it.
				if got, want := gjson.GetBytes(out, path).Raw, gjson.GetBytes(body, "input.0.tools.0.tools.1").Raw; got != want {
					t.Fatalf("%s changed:\n%s\n%s", path, got, want)
				}
				return
			}
			if got, want := gjson.GetBytes(out, path).Raw, gjson.GetBytes(body, path).Raw; got != want || got == "" {
				t.Fatalf("%s changed:\n%s\n%s", path, got, want)
			}
		})
	}
}

func TestRequestShellDescriptionShape(t *testing.T) {
	tests := []struct {
		rule string
		desc string
		want string // exact shell description
	}{
		{"A13: no shape keeps the base description", "Run JavaScript.\n\n### `exec_command`\nRuns a command.", plugins.ShellDescription()},
		{"A13: TypeScript shape appended without cmd", execDesc, plugins.ShellDescription() +
			plugins.ParamsSection("  // Working directory.\n  workdir?: string;\n  tty?: boolean;\n", true)},
		{"A13: bullet shape appended without cmd", "### `exec_command`\nParameters:\n- `cmd` (string): command\n- `workdir` (string): dir\n  continued\n", plugins.ShellDescription() +
			plugins.ParamsSection("- `workdir` (string): dir\n  continued\n", false)},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			out, _, err := rewriteBody(nil, req("", item("at_1", ns("functions", execTool(tt.desc)))))
			if err != nil {
				t.Fatal(err)
			}
			got := gjson.GetBytes(out, "input.0.tools.0.tools.1.description").String()
			if got != tt.want {
				t.Fatalf("shell description:\n%q\nwant\n%q", got, tt.want)
			}
			if strings.Contains(got, "tools.exec_command") {
				t.Fatal("A13: shell description names tools.exec_command")
			}
		})
	}
}

// TestRequestExecWithoutExecCommand (issue 35 item 5): an exec tool whose
// description offers shell_command instead of exec_command gets no shell,
// and the request info names the tool found, for the server's log line.
// An earlier such definition stays as it is beside a later real owner.
func TestRequestExecWithoutExecCommand(t *testing.T) {
	for _, c := range []struct {
		name, desc, other string
	}{
		{"shell_command heading", shellCommandDesc, "shell_command"},
		{"tools.run_shell only", "Run JavaScript with `tools.run_shell({command})`.", "run_shell"},
		{"no command tool", "Run JavaScript.\n\n### `view_image`\nView.", ""},
	} {
		body := req("", item("at_1", ns("functions", execTool(c.desc))))
		out, info, err := rewriteBody(nil, body)
		if err != nil || info.Owned || !info.NoExecCommand || info.OtherCommand != c.other || !bytes.Equal(out, body) {
			t.Errorf("%s: owned %v, info %+v, err %v, unchanged %v", c.name, info.Owned, info, err, bytes.Equal(out, body))
		}
	}
	first := item("at_1", ns("functions", execTool(shellCommandDesc)))
	body := req("", first, item("at_2", ns("functions", execTool(execDesc))))
	out, info, err := rewriteBody(nil, body)
	if err != nil || !info.Owned || info.NoExecCommand || info.Rewritten != 1 {
		t.Fatalf("a later exec_command owner: info %+v, err %v", info, err)
	}
	if !bytes.Contains(out, []byte(first)) || bytes.Count(out, []byte(`"name":"shell"`)) != 1 {
		t.Fatalf("the earlier shell_command exec must stay as sent and the later owner get one shell:\n%s", out)
	}
}
