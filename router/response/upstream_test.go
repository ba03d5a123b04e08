package response_test

import (
	"strconv"
	"strings"

	"hpatch-router/jsonline"
)

// upstream writes an event stream as the Responses API sends one: an
// `event:` line, one `data:` line whose object starts with its type and
// sequence_number, and the blank line. Strings are written unescaped for
// HTML, as the API writes them.
type upstream struct {
	b   strings.Builder
	seq int
}

// emit appends one event with the members fields (a JSON object's
// members without braces, or "") and returns its frame.
func (u *upstream) emit(typ, fields string) string {
	data := `{"type":"` + typ + `","sequence_number":` + strconv.Itoa(u.seq)
	if fields != "" {
		data += "," + fields
	}
	u.seq++
	f := frame(typ, data+"}")
	u.b.WriteString(f)
	return f
}

func (u *upstream) String() string { return u.b.String() }

// frame is one event as sse.Append writes it.
func frame(name, data string) string {
	return "event: " + name + "\ndata: " + data + "\n\n"
}

// item is a custom_tool_call item with its members in the API's order;
// ns "" leaves the namespace out (the flat layout).
func item(id, callID, ns, name, input, status string) string {
	b := `{"type":"custom_tool_call","id":` + jsonline.String(id) + `,"status":` + jsonline.String(status) +
		`,"call_id":` + jsonline.String(callID)
	if ns != "" {
		b += `,"namespace":` + jsonline.String(ns)
	}
	return b + `,"name":` + jsonline.String(name) + `,"input":` + jsonline.String(input) + "}"
}

// call streams one custom tool call at output_index index: added, one
// delta per piece, input done and item done. It returns the done item.
func (u *upstream) call(index int, id, callID, ns, name string, pieces ...string) string {
	oi := `"output_index":` + strconv.Itoa(index)
	u.emit("response.output_item.added", oi+`,"item":`+item(id, callID, ns, name, "", "in_progress"))
	for _, p := range pieces {
		u.emit("response.custom_tool_call_input.delta", `"item_id":`+jsonline.String(id)+","+oi+`,"delta":`+jsonline.String(p))
	}
	input := strings.Join(pieces, "")
	u.emit("response.custom_tool_call_input.done", `"item_id":`+jsonline.String(id)+","+oi+`,"input":`+jsonline.String(input))
	done := item(id, callID, ns, name, input, "completed")
	u.emit("response.output_item.done", oi+`,"item":`+done)
	return done
}

// created and completed open and close a response; completed lists output.
func (u *upstream) created() string {
	return u.emit("response.created", `"response":{"id":"resp_1","status":"in_progress","output":[]}`)
}

func (u *upstream) completed(output ...string) string {
	return u.emit("response.completed", `"response":{"id":"resp_1","status":"completed","output":[`+strings.Join(output, ",")+`],"usage":{"total_tokens":9}}`)
}

// message streams an assistant message at output_index index.
func (u *upstream) message(index int, id, text string) string {
	oi := `"output_index":` + strconv.Itoa(index)
	msg := `{"type":"message","id":` + jsonline.String(id) + `,"role":"assistant","content":[{"type":"output_text","text":` + jsonline.String(text) + `}]}`
	u.emit("response.output_item.added", oi+`,"item":{"type":"message","id":`+jsonline.String(id)+`,"role":"assistant","content":[]}`)
	u.emit("response.output_text.delta", `"item_id":`+jsonline.String(id)+","+oi+`,"content_index":0,"delta":`+jsonline.String(text))
	u.emit("response.output_item.done", oi+`,"item":`+msg)
	return msg
}

// carrierEvents is what the client receives for a withheld call whose
// carrier item is c, its events numbered from seq: the carrier added
// with an empty input and in progress, its input done, its item done.
func carrierEvents(seq, index int, id, callID, ns string, carrier string) string {
	oi := `,"output_index":` + strconv.Itoa(index)
	n := func(k int) string { return `,"sequence_number":` + strconv.Itoa(seq+k) }
	return frame("response.output_item.added", `{"type":"response.output_item.added"`+n(0)+oi+`,"item":`+item(id, callID, ns, "exec", "", "in_progress")+"}") +
		frame("response.custom_tool_call_input.done", `{"type":"response.custom_tool_call_input.done"`+n(1)+oi+`,"item_id":`+jsonline.String(id)+`,"input":`+jsonline.String(carrier)+"}") +
		frame("response.output_item.done", `{"type":"response.output_item.done"`+n(2)+oi+`,"item":`+item(id, callID, ns, "exec", carrier, "completed")+"}")
}
