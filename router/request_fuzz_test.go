package router

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzRewriteRequest checks the rewrite never panics, rejects only with a
// 400 *Error, keeps ownerless bodies unchanged, stays deterministic, and
// turns valid JSON into valid JSON.
func FuzzRewriteRequest(f *testing.F) {
	for _, tc := range captureCases() {
		f.Add(compactJSON(f, readCapture(f, tc.file)))
	}
	f.Add(req("", item("at_1", ns("functions", execTool(execDesc), waitTool), collabNS)))
	f.Add(req("", item("at_1", execTool(execDesc))))
	f.Add(req("", item("at_1", ns("functions", execTool("### `exec_command`\n- `cmd`: c\n- `tty`: t\n")))))
	f.Add([]byte(`{"input":[{"type":"additional_tools","tools":[{"type":"custom","name":"exec","description":"x tools.exec_command y"}]}]}`))
	f.Add([]byte(`{"input":[{"type":"additional_tools","tools":[{"type":"custom","name":"exec","description":7}]}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, info, err := RewriteRequest(body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.StatusCode() != 400 || !json.Valid(e.Body()) {
				t.Fatalf("unexpected error %v", err)
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
		again, _, err := RewriteRequest(body)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatal("not deterministic")
		}
	})
}
