package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"hpatch-router/jsonline"
	"hpatch-router/plugins"
	"hpatch-router/router/routertest"
)

// -update rewrites the golden files under testdata/codex/golden from the
// current RewriteRequest output; review the diff before committing.
var updateGolden = flag.Bool("update", false, "rewrite request golden files in testdata/codex/golden")

const (
	captureDir = "../../testdata/codex/captures"
	goldenDir  = "../../testdata/codex/golden"
)

// captureCase is one real Codex request body and what the rewrite must do.
type captureCase struct {
	rule      string
	file      string // <scenario>/<NNN>-post.json under captureDir
	owners    int    // exec definitions rewritten; 0 means unchanged
	namespace string // carrier namespace when owned
	reject    string // error code when the layout is unsupported
}

// captureCases lists every capture the request tests cover, named after
// the rule each proves.
func captureCases() []captureCase {
	const fn = "functions"
	return []captureCase{
		{"A13: 0.169 CLI functions namespace owner", "cli-lite-exec/000-post.json", 1, fn, ""},
		{"A13: 0.169 CLI follow-up with exec call and output", "cli-lite-exec/001-post.json", 1, fn, ""},
		{"A13: 0.169 CLI code mode by flags", "cli-lite-only-flags/000-post.json", 1, fn, ""},
		{"A13: 0.169 CLI bundled model with collaboration namespace", "cli-bundled-sol/000-post.json", 1, fn, ""},
		{"A13: 0.169 app-server owner", "appserver-lite-exec/000-post.json", 1, fn, ""},
		{"A13: 0.169 app-server follow-up", "appserver-lite-exec/001-post.json", 1, fn, ""},
		{"A13: 0.169 app-server desktop turn 1", "appserver-desktop-sol/000-post.json", 1, fn, ""},
		{"A13: 0.169 app-server desktop turn 2", "appserver-desktop-sol/001-post.json", 1, fn, ""},
		{"A13: 0.169 app-server dynamic tools", "appserver-dynamic-tools/000-post.json", 1, fn, ""},
		{"A13: 0.169 built-in provider with web namespace", "openai-provider-ws/007-post.json", 1, fn, ""},
		{"A13: 0.147 functions namespace owner", "namespaced-0.147.0-cli/000-post.json", 1, fn, ""},
		{"A13: 0.144 flat CLI owner", "flat-0.144.0-cli/000-post.json", 1, "", ""},
		{"A13: 0.144 flat app-server owner", "flat-0.144.0-appserver/000-post.json", 1, "", ""},
		{"A13: incremental tools first turn", "incremental-tools/000-post.json", 1, fn, ""},
		{"A13: incremental tools rewrite both definitions", "incremental-tools/001-post.json", 2, fn, ""},
		{"A13: model switch resume first turn", "model-switch-resume/000-post.json", 1, fn, ""},
		// The switched-to model is not in the custom catalog, so Codex sends
		// it without Code Mode (top-level tools, exec_command a function):
		// the additional_tools item is history and Codex refuses exec calls.
		{"§3: model switch to a model without Code Mode passes unchanged", "model-switch-resume/001-post.json", 0, "", ""},
		{"§3: lite without code mode passes unchanged", "cli-lite-no-codemode/000-post.json", 0, "", ""},
		{"A14: top-level exec rejects", "toplevel-exec/000-post.json", 0, "", CodeUnsupportedToolLayout},
		{"A14: top-level exec follow-up rejects", "toplevel-exec/001-post.json", 0, "", CodeUnsupportedToolLayout},
		{"A14: code mode without lite rejects", "cli-codemode-not-lite/000-post.json", 0, "", CodeUnsupportedToolLayout},
	}
}

func readCapture(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(captureDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func goldenPath(file, suffix string) string {
	return filepath.Join(goldenDir, strings.TrimSuffix(file, "-post.json")+suffix)
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test ./router/ -run RequestCaptures -update)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from golden %s (len %d vs %d); rerun with -update and review the diff", path, len(got), len(want))
	}
}

func TestRequestCaptures(t *testing.T) {
	for _, tc := range captureCases() {
		t.Run(tc.rule, func(t *testing.T) {
			in := readCapture(t, tc.file)
			out, info, err := rewriteBody(nil, in)
			if tc.reject != "" {
				// The error body the router answers is checked against
				// the .error.json golden in package router.
				var re *Error
				if !errors.As(err, &re) {
					t.Fatalf("want *Error %s, got %v", tc.reject, err)
				}
				if re.Code != tc.reject {
					t.Fatalf("want %s, got %s", tc.reject, re.Code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.owners == 0 {
				if info.Owned || len(out) != len(in) || &out[0] != &in[0] {
					t.Fatalf("want the same slice back unchanged, info %+v", info)
				}
				return
			}
			if !info.Owned || info.Rewritten != tc.owners || info.Namespace != tc.namespace {
				t.Fatalf("info = %+v, want %d owners in %q", info, tc.owners, tc.namespace)
			}
			checkGolden(t, goldenPath(tc.file, ".json"), out)
			checkRewritten(t, in, out, tc.owners)
			if got := strings.Join(info.ParamNames(), ","); got != captureParams {
				t.Fatalf("A13: ParamNames = %s, want %s", got, captureParams)
			}
			for _, p := range info.Params {
				if !p.Type.Known() {
					t.Fatalf("the type of %s was not recorded from the declaration", p.Name)
				}
			}
			descs := shellDescriptions(out)
			if len(descs) != tc.owners {
				t.Fatalf("found %d shell tools, want %d", len(descs), tc.owners)
			}
			for _, d := range descs {
				if !strings.Contains(d, "#!params") || !strings.Contains(d, "\n  workdir?: string;\n") {
					t.Fatalf("A13: shell description lacks the request's #!params shape:\n%s", d)
				}
			}

			// The wire form is compact; rewriting it must give the compact
			// form of the pretty rewrite.
			cin := routertest.CompactJSON(t, in)
			cout, _, err := rewriteBody(nil, cin)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(cout, routertest.CompactJSON(t, out)) {
				t.Fatal("A14: compact wire form rewrites differently from the pretty capture")
			}
		})
	}
}

// captureParams are exec_command's arguments except cmd in Codex 0.144–0.169.
const captureParams = "justification,login,max_output_tokens,prefix_rule,sandbox_permissions,shell,tty,workdir,yield_time_ms"

// shellDescriptions returns the description of every injected shell tool.
func shellDescriptions(body []byte) []string {
	var ds []string
	var walk func(r gjson.Result)
	walk = func(r gjson.Result) {
		r.ForEach(func(_, v gjson.Result) bool {
			if v.IsObject() && v.Get("name").String() == "shell" && v.Get("type").String() == "custom" {
				ds = append(ds, v.Get("description").String())
			}
			if v.IsObject() || v.IsArray() {
				walk(v)
			}
			return true
		})
	}
	walk(gjson.GetBytes(body, "input"))
	return ds
}

// checkRewritten proves the A13/A14 properties of one rewrite: it finds the
// injected tools and the owner descriptions in the output, checks them, then
// removes the injected tools and puts the original descriptions back; the
// result must equal the input byte for byte.
func checkRewritten(t *testing.T, in, out []byte, wantOwners int) {
	t.Helper()
	if !json.Valid(out) {
		t.Fatal("output is not valid JSON")
	}
	origDescs := execDescriptions(in)
	spans := injectedSpans(t, out)
	if len(spans) != wantOwners || len(origDescs) != wantOwners {
		t.Fatalf("found %d injected pairs and %d owners, want %d", len(spans), len(origDescs), wantOwners)
	}
	newDescs := execDescriptions(out)
	for i, d := range newDescs {
		s := d.String()
		if strings.Contains(s, "tools.exec_command") || strings.Contains(s, "### `exec_command`") {
			t.Errorf("A13: owner %d description still teaches exec_command", i)
		}
		const clause = ", for example `await tools.exec_command(...)`"
		for _, line := range strings.Split(origDescs[i].String(), "\n") {
			if strings.Contains(line, clause) && !strings.Contains(s, strings.Replace(line, clause, "", 1)) {
				t.Errorf("A13: owner %d intro sentence not repaired: %q", i, line)
			}
		}
	}
	// Undo: from the end backwards so earlier offsets stay valid.
	undone := append([]byte(nil), out...)
	for i := len(spans) - 1; i >= 0; i-- {
		d := newDescs[i]
		sp := spans[i]
		undone = append(undone[:sp[0]], undone[sp[1]:]...)
		undone = append(undone[:d.Index], append([]byte(origDescs[i].Raw), undone[d.Index+len(d.Raw):]...)...)
	}
	if !bytes.Equal(undone, in) {
		t.Fatal("A14: bytes outside the owner descriptions and injected tools changed")
	}
}

// execDescriptions returns the description of every eligible owner, in body
// order, with absolute offsets.
func execDescriptions(body []byte) []gjson.Result {
	var ds []gjson.Result
	gjson.GetBytes(body, "input").ForEach(func(_, item gjson.Result) bool {
		if item.Get("type").String() != "additional_tools" {
			return true
		}
		item.Get("tools").ForEach(func(_, t gjson.Result) bool {
			if t.Get("type").String() == "namespace" {
				t.Get("tools").ForEach(func(_, nt gjson.Result) bool {
					if nt.Get("name").String() == "exec" {
						ds = append(ds, nt.Get("description"))
					}
					return true
				})
			} else if t.Get("name").String() == "exec" {
				ds = append(ds, t.Get("description"))
			}
			return true
		})
		return true
	})
	return ds
}

// injectedSpans finds, for each exec owner, the byte range from the end of
// the exec object through the end of the hpatch tool, checking that the
// two tools follow exec directly and in order.
func injectedSpans(t *testing.T, body []byte) [][2]int {
	t.Helper()
	var spans [][2]int
	check := func(list gjson.Result) {
		arr := list.Array()
		for i, tool := range arr {
			if tool.Get("name").String() != "exec" {
				continue
			}
			if i+2 >= len(arr) || arr[i+1].Get("name").String() != "shell" || arr[i+2].Get("name").String() != "hpatch" {
				t.Fatal("A13: shell and hpatch must follow exec in its container")
			}
			sh := arr[i+1]
			if sh.Get("type").String() != "custom" || sh.Get("format.type").String() != "text" {
				t.Fatalf("A13: shell is not a free-form custom tool: %s", sh.Raw)
			}
			d := sh.Get("description").String()
			if strings.Contains(d, "tools.exec_command") || strings.Contains(d, "\n  cmd: string;") ||
				!strings.HasPrefix(d, plugins.ShellDescription()) {
				t.Fatalf("A13: shell description is not the base plus a sanitized shape:\n%s", d)
			}
			hp := arr[i+2]
			spans = append(spans, [2]int{tool.Index + len(tool.Raw), hp.Index + len(hp.Raw)})
		}
	}
	gjson.GetBytes(body, "input").ForEach(func(_, item gjson.Result) bool {
		if item.Get("type").String() != "additional_tools" {
			return true
		}
		tools := item.Get("tools")
		check(tools)
		tools.ForEach(func(_, t gjson.Result) bool {
			if t.Get("type").String() == "namespace" {
				check(t.Get("tools"))
			}
			return true
		})
		return true
	})
	return spans
}

func TestRequestDeterministic(t *testing.T) {
	for _, tc := range captureCases() {
		if tc.owners == 0 {
			continue
		}
		in := readCapture(t, tc.file)
		a, _, err := rewriteBody(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := rewriteBody(nil, append([]byte(nil), in...))
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: same input gave different output", tc.file)
		}
	}
}

// TestRequestEncoderMatchesCodex proves that re-encoding an owner
// description reproduces the captured bytes (serde_json escaping), so the parts of the exec
// description the rewrite keeps are byte-identical too, not just equal
// after decoding.
func TestRequestEncoderMatchesCodex(t *testing.T) {
	for _, tc := range captureCases() {
		if tc.owners == 0 {
			continue
		}
		for _, d := range execDescriptions(readCapture(t, tc.file)) {
			if got := string(jsonline.AppendSerdeString(nil, d.String())); got != d.Raw {
				t.Fatalf("A14: %s: re-encoded description differs from Codex's encoding", tc.file)
			}
		}
	}
}
