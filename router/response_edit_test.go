package router

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// FuzzEventHead holds readEventHead's one-pass reading of type, item_id
// and sequence_number to gjson's and sequenceNumber's on every valid
// event, and checks that it reads every valid event whose type and
// item_id are strings or null (else the rewrite would fall back to gjson
// on events it meant to read in one pass).
func FuzzEventHead(f *testing.F) {
	for _, s := range []string{
		`{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","delta":"a\"b"}`,
		`{"type":"response.custom_tool_call_input.delta","item_id":"ctc_\u0031","output_index":2,"delta":"x","sequence_number":47}`,
		`{"typ\u0065":"a","type":"b","item_id":null,"sequence_number":"4","sequence_number":5}`,
		`{"type":7,"item_id":"x"}`,
		`{ "item_id" : "i" , "type" : "t" , "sequence_number" : -2.5e1 }`,
		`{}`,
		`{"type":"t","x":[1,{"type":"u"}],"sequence_number":99999999999999999999}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, ok := readEventHead(data)
		if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() || len(data) == 0 || data[0] != '{' {
			return
		}
		typ, id := gjson.GetBytes(data, "type"), gjson.GetBytes(data, "item_id")
		stringy := func(r gjson.Result) bool { return r.Type == gjson.String || r.Type == gjson.Null }
		if !ok {
			if stringy(typ) && stringy(id) {
				t.Fatalf("readEventHead refused %s", data)
			}
			return
		}
		if h.typ != typ.String() || h.itemID != id.String() {
			t.Fatalf("head type %q item_id %q, gjson reads %q %q", h.typ, h.itemID, typ.String(), id.String())
		}
		s, e, _, _ := sequenceNumber(data)
		if h.seqStart != s || h.seqEnd != e {
			t.Fatalf("head sequence_number at %d:%d, sequenceNumber finds %d:%d", h.seqStart, h.seqEnd, s, e)
		}
	})
}

// sjsonCarrier is the carrier edit made with sjson, one call per edit in
// order, as the router made it before appendEdited.
func sjsonCarrier(item []byte, input, ns string, delNS bool) ([]byte, error) {
	out, err := sjson.SetBytes(bytes.Clone(item), "name", toolExec)
	if err == nil {
		out, err = sjson.SetBytes(out, "input", input)
	}
	switch {
	case err != nil:
	case delNS:
		out, err = sjson.DeleteBytes(out, "namespace")
	case ns != "":
		out, err = sjson.SetBytes(out, "namespace", ns)
	}
	if err == nil && gjson.GetBytes(out, "status").Exists() {
		out, err = sjson.SetBytes(out, "status", "in_progress")
	}
	return out, err
}

// FuzzAppendEdited holds the one-pass member edit to the sjson calls it
// replaces, byte for byte, on every compact object (the model API's items
// are compact) whose keys have no escapes.
func FuzzAppendEdited(f *testing.F) {
	for _, s := range []string{
		`{"type":"custom_tool_call","id":"ctc_1","call_id":"c","name":"shell","namespace":"functions","input":"ls\n","status":"completed"}`,
		`{"namespace":"functions"}`,
		`{"namespace":"functions","name":"shell"}`,
		`{"name":"shell","input":"x","namespace":"functions"}`,
		`{"name":"a","name":"b","namespace":1,"namespace":2}`,
		`{}`,
		`{"status":null,"input":{"a":[1,2]}}`,
	} {
		f.Add([]byte(s), "print(\"<x>\")\n", "functions", false)
		f.Add([]byte(s), "plain", "", true)
	}
	f.Fuzz(func(t *testing.T, item []byte, input, ns string, delNS bool) {
		var compact bytes.Buffer
		if !gjson.ValidBytes(item) || !gjson.ParseBytes(item).IsObject() || item[0] != '{' ||
			json.Compact(&compact, item) != nil || !bytes.Equal(compact.Bytes(), item) || bytes.Contains(item, []byte(`\`)) {
			return
		}
		if delNS { // a flat owner: the namespace goes, when there is one
			ns = ""
			delNS = gjson.GetBytes(item, "namespace").Exists()
		}
		want, err := sjsonCarrier(item, input, ns, delNS)
		if err != nil {
			return
		}
		edits := []memberEdit{{key: "name", value: []byte(`"exec"`)}, {key: "input", value: appendSJSONString(nil, input)}}
		switch {
		case delNS:
			edits = append(edits, memberEdit{key: "namespace", del: true})
		case ns != "":
			edits = append(edits, memberEdit{key: "namespace", value: appendSJSONString(nil, ns)})
		}
		edits = append(edits, memberEdit{key: "status", value: []byte(`"in_progress"`), ifPresent: true})
		got, ok := appendEdited(nil, item, edits)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("edited %s\n into %s (%v)\n sjson gives %s", item, got, ok, want)
		}
	})
}
