package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"hpatch-router/router/routertest"
)

// FuzzRewriteRequest checks the rewrite never panics, rejects only with an
// *Error, keeps ownerless bodies unchanged, stays deterministic, and
// turns valid JSON into valid JSON.
func FuzzRewriteRequest(f *testing.F) {
	// One real capture; the Go fuzzer slows down badly with many large
	// seeds, and the small synthetic ones below reach the same branches.
	f.Add(routertest.CompactJSON(f, readCapture(f, "flat-0.144.0-cli/000-post.json")))
	f.Add(req(execTool(execDesc)))
	f.Add(req(shellFunc, item("at_1", execTool(execDesc))))
	f.Add(req("", item("at_1", ns("functions", execTool(execDesc), shellFunc))))
	f.Add(req("", item("at_1", `{"type":"custom","name":"functions.exec"}`)))
	f.Add(req("", item("at_1", ns("functions", execTool(execDesc))), item("at_2", ns("functions", execTool(execDesc)))))
	f.Add(req("", item("at_1", ns("functions", execTool(execDesc), waitTool), collabNS)))
	f.Add(req("", item("at_1", execTool(execDesc))))
	f.Add(req("", item("at_1", ns("functions", execTool("### `exec_command`\n- `cmd`: c\n- `tty`: t\n")))))
	f.Add([]byte(`{"input":[{"type":"additional_tools","tools":[{"type":"custom","name":"exec","description":"x tools.exec_command y"}]}]}`))
	f.Add([]byte(`{"input":[{"type":"additional_tools","tools":[{"type":"custom","name":"exec","description":7}]}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, info, err := rewriteBody(nil, body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code == "" || e.Message == "" {
				t.Fatalf("unexpected error %v", err)
			}
			if e.Code == CodeInvalidJSON && json.Valid(body) && bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) {
				t.Fatalf("valid JSON object rejected as invalid: %v\n%q", err, body)
			}
			return
		}
		if !json.Valid(body) {
			// gjson accepted what encoding/json did not (e.g. invalid
			// UTF-8 in strings); nothing more to check.
			return
		}
		if !json.Valid(out) {
			t.Fatalf("valid input gave invalid output:\n%q\n%q", body, out)
		}
		if !info.Owned && !bytes.Equal(out, body) {
			t.Fatal("ownerless body changed")
		}
		again, _, err := rewriteBody(nil, body)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatal("not deterministic")
		}
	})
}

// FuzzTrimExecDescription checks the description rewrite and the params
// parser on arbitrary text: no panic, no hang, and no tools.exec_command
// left in the owner description or the extracted shape.
func FuzzTrimExecDescription(f *testing.F) {
	f.Add(execDesc)
	f.Add("### `exec_command`\n- `cmd`: c\n- `tty`: t\n")
	f.Add("x, for example `tools.exec_command()`. y (e.g. `tools.exec_command`) z tools.exec_command. w")
	f.Add("### `exec_command`\nexec_command(args: { cmd: string; a?: Record<string, (x: number) => void>; /* c */ b: \"q;\" })")
	f.Fuzz(func(t *testing.T, desc string) {
		got := trimExecDescription(desc)
		if strings.Contains(got.Description, nestedExecCommand) || strings.Contains(got.Shape.Fields, nestedExecCommand) {
			t.Fatalf("tools.exec_command survived in %q", got.Description)
		}
		for _, n := range got.Shape.Names() {
			if n == "cmd" {
				t.Fatal("cmd in the params shape")
			}
		}
	})
}
