package router

import (
	"bytes"
	"errors"
	"hash/maphash"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// turns grows the compact capture base by n exec turns (call and output).
func turns(tb testing.TB, base []byte, n int) []byte {
	k := 0
	return conversation(tb, base, 0, func(int) bool { k++; return k <= n })
}

// sameRewrite fails unless rr's thread rewrite of body gives exactly what
// RewriteRequest gives: bytes, facts and error code.
func sameRewrite(t *testing.T, rr *RequestRewriter, thread string, body []byte, what string) {
	t.Helper()
	want, wantInfo, wantErr := RewriteRequest(body)
	got, info, err := rr.RewriteThread(thread, body)
	if !bytes.Equal(got, want) || info.Owned != wantInfo.Owned || info.Namespace != wantInfo.Namespace ||
		info.Rewritten != wantInfo.Rewritten || info.ParamsShape != wantInfo.ParamsShape || errCode(err) != errCode(wantErr) {
		t.Fatalf("%s: thread rewrite differs from RewriteRequest: %v / %v", what, err, wantErr)
	}
}

func errCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// TestRewriteThreadResumesOnlyOnTheSamePrefix follows a thread whose
// conversation grows: a body that repeats the last one's input is scanned
// from where that scan stood, and a body whose old part changed in any way
// (invalid, valid but different, or the tools item) is scanned whole, so
// every answer is RewriteRequest's.
func TestRewriteThreadResumesOnlyOnTheSamePrefix(t *testing.T) {
	base := compactJSON(t, readCapture(t, "cli-lite-exec/001-post.json"))
	first, second := turns(t, base, 20), turns(t, base, 23)
	rr := NewRequestRewriter(0)
	sameRewrite(t, rr, "th", first, "first request")
	p := rr.scans.points["th"].p
	if p == nil {
		t.Fatal("no scan point remembered for a 50 KB conversation")
	}
	if want := bytes.LastIndex(first, []byte(`],"tool_choice"`)); p.end != want || p.inputLen < 2*20 {
		t.Fatalf("scan point at %d after %d items, want the end of the input's last item at %d", p.end, p.inputLen, want)
	}
	if rr.resumePoint("th", second, new(prefixDigest)) != p {
		t.Fatal("the next request of the thread repeats the prefix but would not resume")
	}
	sameRewrite(t, rr, "th", second, "grown conversation")
	q := rr.scans.points["th"].p
	if q == p || q.end <= p.end {
		t.Fatal("the scan point did not move to the grown conversation's end")
	}
	if n := gjson.GetBytes(second, "input.#").Int(); q.inputLen != n {
		t.Fatalf("the resumed scan counted %d input items, the body has %d", q.inputLen, n)
	}
	// The new point's digest continued from the old one's: the request
	// after it must resume from it too.
	if rr.resumePoint("th", turns(t, base, 25), new(prefixDigest)) != q {
		t.Fatal("the request after a resumed one would not resume: the continued digest is wrong")
	}

	// Changes inside the validated prefix: an old message made invalid in
	// several ways, changed but still valid, and the tools item changed.
	old := bytes.Index(second, []byte(`"call_id":"call_3"`))
	changed := map[string][]byte{
		"bad escape in an old output":     replaceAt(second, `with some text\n`, `with some text\x`, old),
		"control byte in an old output":   replaceAt(second, "with some", "with\x01some", old),
		"unbalanced old item":             replaceAt(second, `"status":"completed",`, `"status":"completed"}`, old),
		"old output changed, still valid": replaceAt(second, "with some text", "with other text", old),
		"tools item conflicts":            []byte(strings.Replace(string(second), `"name":"wait"`, `"name":"shell"`, 1)),
		"truncated inside the prefix":     second[:old],
	}
	for what, body := range changed {
		if bytes.Equal(body, second) {
			t.Fatalf("%s: the change did not apply", what)
		}
		sameRewrite(t, rr, "th", second, "back to the good body before "+what)
		sameRewrite(t, rr, "th", body, what)
	}
	if _, _, err := rr.RewriteThread("th", changed["bad escape in an old output"]); errCode(err) != CodeInvalidJSON {
		t.Fatalf("an invalid old message after a resumable request: %v, want invalid_json", err)
	}

	// Another thread, and a request without one, never use this point.
	if rr.resumePoint("other", second, new(prefixDigest)) != nil || rr.resumePoint("", second, new(prefixDigest)) != nil {
		t.Fatal("a scan point was used for another thread")
	}
}

// TestRewriteThreadEveryPrefixByte changes each byte position of the
// remembered prefix in turn (every 509th byte, to several values) and checks
// the answer is still RewriteRequest's: no change escapes the digest.
func TestRewriteThreadEveryPrefixByte(t *testing.T) {
	base := compactJSON(t, readCapture(t, "cli-lite-exec/001-post.json"))
	first, second := turns(t, base, 8), turns(t, base, 9)
	rr := NewRequestRewriter(0)
	for pos := 0; pos < len(first)-20; pos += 509 {
		for _, c := range []byte{'"', '\\', '}', ']', ',', 'x', 0x01, ' '} {
			if second[pos] == c {
				continue
			}
			sameRewrite(t, rr, "th", first, "prime")
			body := bytes.Clone(second)
			body[pos] = c
			sameRewrite(t, rr, "th", body, "byte changed in the prefix")
		}
	}
}

// TestRewriteThreadBounds keeps the scan points bounded: at most
// maxResumeThreads threads, none for short bodies.
func TestRewriteThreadBounds(t *testing.T) {
	base := compactJSON(t, readCapture(t, "cli-lite-exec/001-post.json"))
	long := turns(t, base, 8)
	rr := NewRequestRewriter(0)
	sameRewrite(t, rr, "short", req("", item("at_1", ns("functions", execTool(execDesc)))), "short body")
	if rr.scans.get("short") != nil {
		t.Fatal("a scan point for a body shorter than minResumeBytes")
	}
	for i := range maxResumeThreads + 10 {
		sameRewrite(t, rr, "t"+strings.Repeat("x", i%3)+string(rune('a'+i%26))+strings.Repeat("y", i/26), long, "many threads")
	}
	if n := len(rr.scans.points); n > maxResumeThreads {
		t.Fatalf("%d scan points, bound %d", n, maxResumeThreads)
	}
}

// replaceAt replaces the first old after position at in b.
func replaceAt(b []byte, old, repl string, at int) []byte {
	i := bytes.Index(b[at:], []byte(old))
	if i < 0 {
		return b
	}
	out := append([]byte(nil), b[:at+i]...)
	out = append(out, repl...)
	return append(out, b[at+i+len(old):]...)
}

// TestPrefixDigestContinues checks that a digest continued over several
// sums, forward or back, is always the one-shot digest of that prefix.
func TestPrefixDigestContinues(t *testing.T) {
	seed := maphash.MakeSeed()
	body := bytes.Repeat([]byte("0123456789abcdefghij"), 1000)
	for _, steps := range [][]int{
		{0, 10, 10, 5000, 19999},
		{300, 129, 128, 127, 4096},
		{20000, 1},
		{7, 200, 3, 200},
	} {
		var d prefixDigest
		for _, n := range steps {
			if got, want := d.sum(seed, body, n), maphash.Bytes(seed, body[:n]); got != want {
				t.Fatalf("steps %v: digest of the first %d bytes %x, want %x", steps, n, got, want)
			}
		}
	}
}
