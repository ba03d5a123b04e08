package router

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// FuzzRewriteRequest checks the rewrite never panics, rejects only with a
// 400 *Error, keeps ownerless bodies unchanged, stays deterministic, and
// turns valid JSON into valid JSON.
func FuzzRewriteRequest(f *testing.F) {
	// One real capture; the Go fuzzer slows down badly with many large
	// seeds, and the small synthetic ones below reach the same branches.
	f.Add(compactJSON(f, readCapture(f, "flat-0.144.0-cli/000-post.json")))
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
		out, info, err := RewriteRequest(body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.StatusCode() != 400 || !json.Valid(e.Body()) {
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
		again, _, err := RewriteRequest(body)
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

// FuzzDecodeJSONString checks the description decoder against gjson, whose
// reading it replaces: for every string literal the scanner accepts, both
// give the same text (escapes, surrogate pairs, lone surrogates, raw
// non-UTF-8 bytes), and appendJSONString writes what serde_json would.
func FuzzDecodeJSONString(f *testing.F) {
	for _, s := range []string{`""`, `"plain"`, `"a\nb\t\"q\"\\ \/ \b\f\r"`, `"\u00e9\u20AC"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ude00\ud83d x"`, `"\ud83d\u0041"`, "\"\xff\xfe raw\"", `"` + strings.Repeat(`line\n`, 40) + `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		b := []byte(raw)
		if len(b) < 2 || b[0] != '"' || jsString(b, 1) != len(b) {
			return
		}
		got, want := decodeJSONString(raw), gjson.Parse(raw).String()
		if got != want {
			t.Fatalf("decodeJSONString(%q) = %q, gjson reads %q", raw, got, want)
		}
		var dec string
		if utf8.ValidString(got) && json.Unmarshal(appendJSONString(nil, got), &dec) != nil || utf8.ValidString(got) && dec != got {
			t.Fatalf("appendJSONString(%q) does not decode back", got)
		}
	})
}

// FuzzMemberValue checks the member lookup against gjson's Get on valid
// objects: the same member (the first of duplicates, escaped names
// decoded) or none.
func FuzzMemberValue(f *testing.F) {
	f.Add(`{"description":"d","name":"exec"}`, "description")
	f.Add(`{"name":"a","name":"b"}`, "name")
	f.Add(`{ "d\u0065scription" : [1, {"description":2}] , "description":3}`, "description")
	f.Add(`{"x":{"description":1}}`, "description")
	f.Add(`{}`, "type")
	f.Fuzz(func(t *testing.T, obj, key string) {
		if !validJSON([]byte(obj)) || len(obj) == 0 || obj[0] != '{' || key == "" {
			return
		}
		want := gjson.Get(obj, gjson.Escape(key)) // a key, never gjson path syntax ("[0", "a.b", "#")
		s, e, ok := memberValue(obj, key)
		if ok != want.Exists() || ok && (obj[s:e] != want.Raw || s != want.Index) {
			t.Fatalf("memberValue(%q, %q) = %q %v; gjson finds %q at %d", obj, key, obj[s:e], ok, want.Raw, want.Index)
		}
	})
}
