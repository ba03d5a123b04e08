package router

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/tidwall/gjson"
)

const (
	resumeThread = "01a23618-3154-7773-b8cb-233739215f5f"
	// convCarrier is the exec input conversation() writes for every call.
	convCarrier = "const r = await tools.exec_command({cmd: \"ls -la\"});\ntext(JSON.stringify(r));"
)

// putCalls makes the router's replay store know call_<i> for each i, with
// the carrier conversation() echoes (or other, to be refused).
func putCalls(t *testing.T, rt *Router, carrier string, ids ...int) {
	t.Helper()
	for _, i := range ids {
		id := "call_" + strconv.Itoa(i)
		if err := rt.replay.put(resumeThread, id, carrier, []byte(`{"type":"custom_tool_call","call_id":"`+id+`","name":"shell","input":"ls"}`)); err != nil {
			t.Fatal(err)
		}
	}
}

// sameRestore fails unless rt's restore of body (which may resume the
// thread's walk) gives what a walk of the whole body gives: the same bytes
// or the same error.
func sameRestore(t *testing.T, rt *Router, body []byte, what string) {
	t.Helper()
	got, err := rt.restoreReplay(resumeThread, body)
	kept := rt.restoreWalk
	rt.restoreWalk = newRestoreResume() // no point: the whole body is walked
	want, wantErr := rt.restoreReplay(resumeThread, body)
	rt.restoreWalk = kept
	if !bytes.Equal(got, want) || errCode(err) != errCode(wantErr) {
		t.Fatalf("%s: resumed restore differs from a whole walk: %d bytes %v, want %d bytes %v", what, len(got), err, len(want), wantErr)
	}
}

// TestRestoreResumesOnlyOnTheSamePrefix follows a thread with carriers: a
// body that repeats the last one's input is walked from where that walk
// stood, every call in it is judged by the store afresh, and a body whose
// old part changed in any byte is walked whole.
func TestRestoreResumesOnlyOnTheSamePrefix(t *testing.T) {
	base := compactJSON(t, readCapture(t, "cli-lite-exec/001-post.json"))
	first, second := turns(t, base, 20), turns(t, base, 23)
	rt := newTestRouter(t)
	putCalls(t, rt, convCarrier, 0, 2, 4, 21)
	sameRestore(t, rt, first, "first request")
	p := rt.restoreWalk.points.get(resumeThread)
	if p == nil || len(p.calls) != 21 {
		t.Fatalf("no restore point with the 21 exec calls of a 50 KB conversation (the capture's and 20 more): %+v", p)
	}
	if want := bytes.LastIndex(first, []byte(`],"tool_choice"`)); p.end != want {
		t.Fatalf("restore point at %d, want the end of the input's last item at %d", p.end, want)
	}
	out, err := rt.restoreReplay(resumeThread, second)
	if err != nil || bytes.Count(out, []byte(`"name":"shell"`)) != 4 {
		t.Fatalf("grown conversation: %v, %d calls restored, want 4", err, bytes.Count(out, []byte(`"name":"shell"`)))
	}
	if q := rt.restoreWalk.points.get(resumeThread); q == p || q.end <= p.end || len(q.calls) != 24 {
		t.Fatal("the restore point did not move to the grown conversation's end")
	}

	// The store changed after the prefix was walked: a call unknown then
	// is restored now, one with another carrier is refused.
	putCalls(t, rt, convCarrier, 5)
	sameRestore(t, rt, second, "a prefix call the store learned")
	putCalls(t, rt, "something else", 7)
	if _, err := rt.restoreReplay(resumeThread, second); errCode(err) != CodeReplayMismatch {
		t.Fatalf("a prefix call whose carrier the store does not match: %v, want %s", err, CodeReplayMismatch)
	}
}

// TestRestoreInvalidOriginal: an original item that is not valid JSON is
// refused as the rewrite would refuse the restored body, not forwarded.
func TestRestoreInvalidOriginal(t *testing.T) {
	rt := newTestRouter(t)
	if err := rt.replay.put(resumeThread, "call_1", convCarrier, []byte(`{"type":"custom_tool_call",`)); err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"input":[` + echoOf("ctc_1", "call_1", "functions", convCarrier) + `]}`)
	if _, err := rt.restoreEdits(resumeThread, body); errCode(err) != CodeInvalidJSON {
		t.Fatalf("restoring an invalid original item: %v, want %s", err, CodeInvalidJSON)
	}
}

// TestRestoreEveryPrefixByte changes each byte position of the remembered
// prefix in turn (every 509th byte, to several values) and checks the
// restore still answers as a whole walk does: no change escapes the digest.
func TestRestoreEveryPrefixByte(t *testing.T) {
	base := compactJSON(t, readCapture(t, "cli-lite-exec/001-post.json"))
	first, second := turns(t, base, 8), turns(t, base, 9)
	rt := newTestRouter(t)
	putCalls(t, rt, convCarrier, 1, 3, 8)
	for pos := 0; pos < len(first)-20; pos += 509 {
		for _, c := range []byte{'"', '\\', '}', ']', ',', 'x', 0x01, ' '} {
			if second[pos] == c {
				continue
			}
			sameRestore(t, rt, first, "prime")
			body := bytes.Clone(second)
			body[pos] = c
			sameRestore(t, rt, body, "byte changed in the prefix")
		}
	}
}

// gjsonExecCalls is the restore's reading as it was with gjson: the exec
// custom_tool_call items of the first top-level input array.
func gjsonExecCalls(body []byte) []execCall {
	var calls []execCall
	gjson.GetBytes(body, "input").ForEach(func(_, v gjson.Result) bool {
		if v.Get("type").String() == "custom_tool_call" && v.Get("name").String() == toolExec {
			in := v.Get("input")
			c := execCall{id: v.Get("call_id").String(), start: v.Index, end: v.Index + len(v.Raw)}
			if in.Exists() {
				c.input = span{in.Index, in.Index + len(in.Raw)} // gjson adds v.Index
			}
			calls = append(calls, c)
		}
		return true
	})
	return calls
}

// FuzzRestoreWalk holds the restore walk to gjson's reading on every valid
// body, to rejection on every invalid one, and a walk resumed from its own
// point to the whole walk.
func FuzzRestoreWalk(f *testing.F) {
	f.Add([]byte(`{"input":[{"type":"custom_tool_call","call_id":"c1","name":"exec","input":"a\nb"}]}`))
	f.Add([]byte(`{"in\u0070ut":[1,{"name":"exec","type":"custom_tool_call","call_id":7},[]],"input":[{"type":"custom_tool_call","name":"exec"}]}`))
	f.Add([]byte(`{"input":{"type":"custom_tool_call"},"x":[{"type":"custom_tool_call","name":"exec"}]}`))
	f.Add([]byte(`{"a":"b", "input" : [ {"type":"custom_tool_call","type":"x","name":"exec","call_id":"\u0063"} ] , "z":null}`))
	f.Add([]byte(`{"input":[{"type":"custom_tool_call","name":"exec","input":"x"},]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rr := newRestoreResume()
		always := func() bool { return true }
		w, ok := rr.walk(resumeThread, body, always)
		if ok != (validJSON(body) && isJSONObject(body)) {
			t.Fatalf("walk ok %v for a body valid %v", ok, validJSON(body))
		}
		if !ok {
			return
		}
		want := gjsonExecCalls(body)
		if len(w.calls) != len(want) {
			t.Fatalf("%d exec calls, gjson reads %d", len(w.calls), len(want))
		}
		for i, c := range w.calls {
			if c.carrier != carrierDigest(gjson.GetBytes(body, "input."+strconv.Itoa(indexOf(body, c.start))+".input").String()) {
				t.Fatalf("call %d: carrier digest is not the one of the input gjson reads", i)
			}
			if c.carrier = ""; c != want[i] {
				t.Fatalf("call %d: %+v, gjson reads %+v", i, c, want[i])
			}
		}
		if w.inputEnd == 0 {
			return
		}
		// Resume from this walk's own point (whatever its size) over the
		// same body and over it with one more item.
		rr.points.put(resumeThread, &restorePoint{end: w.inputEnd, digest: maphashPrefix(rr, body, w.inputEnd), calls: w.calls})
		again, ok := rr.walk(resumeThread, body, always)
		if !ok || len(again.calls) != len(w.calls) || again.inputEnd != w.inputEnd {
			t.Fatalf("resumed walk: ok %v, %d calls at %d, want %d at %d", ok, len(again.calls), again.inputEnd, len(w.calls), w.inputEnd)
		}
	})
}

// indexOf is the index in body's input array of the item at offset start.
func indexOf(body []byte, start int) int {
	n := -1
	gjson.GetBytes(body, "input").ForEach(func(k, v gjson.Result) bool {
		if v.Index == start {
			n = int(k.Int())
			return false
		}
		return true
	})
	return n
}

func maphashPrefix(rr *restoreResume, body []byte, n int) uint64 {
	var d prefixDigest
	return d.sum(rr.seed, body, n)
}
