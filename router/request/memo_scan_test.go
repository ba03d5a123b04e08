package request

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// longTop is a top-level tools list long enough for the memo.
const longTop = waitTool + "," + collabNS + "," + waitTool

// TestRequestRewriterMemoMatchIsExact proves a remembered item is only
// skipped when the bytes really are that item, and that what follows it is
// still validated.
func TestRequestRewriterMemoMatchIsExact(t *testing.T) {
	owner := item("at_1", ns("functions", execTool(execDesc)))
	good := req("", owner)
	rr := NewRewriter(4)
	want, _, err := rewriteBody(nil, good)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := rewriteBody(rr, good); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("first rewrite differs: %v", err)
	}
	if len(rr.entries) != 1 {
		t.Fatalf("memo holds %d items, want 1", len(rr.entries))
	}
	i := bytes.Index(good, []byte(owner))
	end := i + len(owner)
	bad := map[string][]byte{
		"garbage after the item":  append(append(append([]byte(nil), good[:end]...), '}'), good[end:]...),
		"truncated inside item":   append([]byte(nil), good[:end-1]...),
		"truncated after item":    append([]byte(nil), good[:end]...),
		"unclosed body":           append([]byte(nil), good[:len(good)-1]...),
		"item as top-level value": append([]byte(`{"input":`), append([]byte(owner), '}', '}')...),
	}
	for name, body := range bad {
		_, _, err := rewriteBody(rr, body)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidJSON {
			t.Errorf("%s: want invalid_json, got %v", name, err)
		}
	}
	// A remembered top-level tools list is validated around too.
	top := req(longTop, owner)
	if _, _, err := rewriteBody(rr, top); err != nil {
		t.Fatal(err)
	}
	j := bytes.Index(top, []byte(longTop)) + len(longTop)
	for _, body := range [][]byte{
		append(append(append([]byte(nil), top[:j]...), '"'), top[j:]...),
		append([]byte(nil), top[:j]...),
	} {
		var e *Error
		if _, _, err := rewriteBody(rr, body); !errors.As(err, &e) || e.Code != CodeInvalidJSON {
			t.Errorf("broken body after a remembered tools list: want invalid_json, got %v", err)
		}
	}
	// The same item elsewhere: second position, pretty surroundings, or
	// next to a changed copy of itself.
	changed := strings.Replace(owner, `"at_1"`, `"at_2"`, 1)
	for _, body := range [][]byte{
		req("", owner, changed),
		[]byte("{\n  \"input\" : [\n    " + owner + "\n  ]\n}\n"),
		req("", changed, owner),
		req(shellFunc, owner),
		req(longTop, owner),
		req(longTop, owner),
		req(longTop+","+shellFunc, owner),
		req(ns("functions", execTool(execDesc))+","+longTop, owner),
	} {
		want, wantInfo, wantErr := rewriteBody(nil, body)
		got, info, err := rewriteBody(rr, body)
		if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) || info.Rewritten != wantInfo.Rewritten || info.Namespace != wantInfo.Namespace {
			t.Fatalf("memoized rewrite differs for %s: %v / %v", body, err, wantErr)
		}
	}
}

// FuzzRequestRewriterMatches checks Rewriter against RewriteRequest
// on arbitrary bodies, with a memo that already holds the seeds' items, so
// mutations around and inside remembered items reach the skip path.
func FuzzRequestRewriterMatches(f *testing.F) {
	rr := NewRewriter(8)
	seeds := [][]byte{
		req("", item("at_1", ns("functions", execTool(execDesc), waitTool), collabNS)),
		req("", item("at_1", execTool(execDesc)), item("at_2", ns("functions", shellFunc))),
		req(shellFunc, item("at_1", execTool(execDesc))),
		req(longTop, item("at_1", ns("functions", execTool(execDesc)))),
		req(longTop+","+shellFunc, item("at_1", execTool(execDesc))),
	}
	for _, s := range seeds {
		f.Add(s)
		if _, _, err := rewriteBody(rr, s); err != nil && len(rr.entries) == 0 {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		want, wantInfo, wantErr := rewriteBody(nil, body)
		got, info, err := rewriteBody(rr, body)
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("errors differ: %v / %v", err, wantErr)
		}
		if !bytes.Equal(got, want) || info.Owned != wantInfo.Owned || info.Namespace != wantInfo.Namespace ||
			info.Rewritten != wantInfo.Rewritten || info.ParamsShape != wantInfo.ParamsShape ||
			strings.Join(info.ParamNames(), ",") != strings.Join(wantInfo.ParamNames(), ",") {
			t.Fatalf("memoized rewrite differs for %q", body)
		}
	})
}
