package response

import (
	"bytes"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"hpatch-router/router/sse"
)

// Stream rewrites one upstream event stream, event by event (DESIGN
// §4). A model shell/hpatch call is withheld from its output_item.added to
// its output_item.done, which is replaced by the carrier's added,
// custom_tool_call_input.done and output_item.done events. Every other
// event passes byte for byte unless its sequence_number has to move to stay
// strictly increasing.
type Stream struct {
	s        *Session
	withheld map[string]withheldCall // by item id
	execs    map[string]bool         // item ids of in-scope model exec calls
	lastSeq  int64
	seqSeen  bool
}

type withheldCall struct {
	seq    int64
	hasSeq bool
}

// NewStream starts the rewrite of one event stream of session s.
func NewStream(s *Session) *Stream {
	return &Stream{s: s, withheld: map[string]withheldCall{}, execs: map[string]bool{}}
}

// Pending is the number of calls withheld and not completed yet: a
// stream that ends with some drops them.
func (w *Stream) Pending() int { return len(w.withheld) }

// Handle appends what the client receives for ev to out. An event of a
// type the rewrite leaves alone (most are text deltas) is read once, for
// its head, and passes byte for byte.
func (w *Stream) Handle(ev *sse.Event, out []byte) []byte {
	if !ev.HasData || len(ev.Data) == 0 || ev.Data[0] != '{' {
		return append(out, ev.Raw...)
	}
	data := ev.Data
	head := gjson.GetManyBytes(data, "type", "item_id")
	typ, itemID := head[0].String(), head[1].String()
	if typ == "" {
		typ = ev.Name
	}
	if !ev.Complete {
		// The stream ended inside this event; the client would discard it.
		// Pass it as it is unless it may belong to a withheld call.
		if w.Pending() > 0 || w.touches(typ, itemID, data) {
			return out
		}
		return append(out, ev.Raw...)
	}
	changed := false
	switch typ {
	case "response.output_item.added":
		item := gjson.GetBytes(data, "item")
		if w.s.inScope(item) {
			if !withholds(item) {
				w.execs[item.Get("id").String()] = true
				break
			}
			seq := gjson.GetBytes(data, "sequence_number")
			w.withheld[item.Get("id").String()] = withheldCall{seq: seq.Int(), hasSeq: seq.Type == gjson.Number}
			return out
		}
	case "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done":
		if _, ok := w.withheld[itemID]; ok {
			return out
		}
		if typ == "response.custom_tool_call_input.done" && w.execs[itemID] {
			data, changed = w.annotateInputDone(data)
		}
	case "response.output_item.done":
		item := gjson.GetBytes(data, "item")
		if !w.s.inScope(item) {
			break
		}
		if withholds(item) {
			if w.s.repeatedCall(item) {
				delete(w.withheld, item.Get("id").String())
				return out
			}
			return w.carrierEvents(ev, data, item, out)
		}
		if c := w.s.carrierItem(item); c != nil {
			if nd, err := sjson.SetRawBytes(append([]byte(nil), data...), "item", c); err == nil {
				data, changed = nd, true
			}
		}
	case "response.completed", "response.incomplete":
		if nd, ok := w.s.RewriteOutput(data, "response.output"); ok {
			data, changed = nd, true
		}
	}
	data, moved := w.renumber(data)
	if !changed && !moved {
		return append(out, ev.Raw...)
	}
	return sse.Append(out, ev.Name, data)
}

// touches reports whether an event concerns a withheld call.
func (w *Stream) touches(typ, itemID string, data []byte) bool {
	switch typ {
	case "response.output_item.added", "response.output_item.done":
		item := gjson.GetBytes(data, "item")
		return w.s.inScope(item) && withholds(item)
	case "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done":
		_, ok := w.withheld[itemID]
		return ok
	case "response.completed", "response.incomplete":
		return true
	}
	return false
}

// annotateInputDone gives a model exec call's input.done the annotated
// input when AnnotateExec changes it (the item done event follows suit).
func (w *Stream) annotateInputDone(data []byte) ([]byte, bool) {
	input := gjson.GetBytes(data, "input")
	if input.Type != gjson.String {
		return data, false
	}
	annotated, ok := w.s.deps.Translator.AnnotateExec(input.String())
	if !ok {
		return data, false
	}
	nd, err := sjson.SetBytes(append([]byte(nil), data...), "input", annotated)
	if err != nil {
		return data, false
	}
	return nd, true
}

// renumber keeps sequence_number strictly increasing: an event keeps the
// upstream number (when it has one) unless an inserted event already used
// it; the number is replaced in place.
func (w *Stream) renumber(data []byte) ([]byte, bool) {
	seq := gjson.GetBytes(data, "sequence_number")
	if seq.Type != gjson.Number {
		return data, false
	}
	n := w.nextSeq(seq.Int())
	if n == seq.Int() {
		return data, false
	}
	nd, err := sjson.SetBytes(bytes.Clone(data), "sequence_number", n)
	if err != nil {
		return data, false
	}
	return nd, true
}

func (w *Stream) nextSeq(want int64) int64 {
	if w.seqSeen && want <= w.lastSeq {
		want = w.lastSeq + 1
	}
	w.lastSeq, w.seqSeen = want, true
	return want
}

// carrierEvents emits the carrier for a withheld call whose
// output_item.done is data.
func (w *Stream) carrierEvents(ev *sse.Event, data []byte, item gjson.Result, out []byte) []byte {
	id := item.Get("id")
	held, wasAdded := w.withheld[id.String()]
	delete(w.withheld, id.String())
	c := w.s.carrierItem(item)
	if c == nil { // cannot happen for shell/hpatch unless the item is malformed
		return append(out, ev.Raw...)
	}
	doneSeq := gjson.GetBytes(data, "sequence_number")
	hasSeq := doneSeq.Type == gjson.Number
	base := doneSeq.Int()
	if wasAdded && held.hasSeq {
		base = held.seq
	}
	outputIndex := gjson.GetBytes(data, "output_index")
	added, _ := sjson.SetBytes(bytes.Clone(c), "input", "")
	if gjson.GetBytes(added, "status").Exists() {
		added, _ = sjson.SetBytes(added, "status", "in_progress")
	}
	carrierInput := gjson.GetBytes(c, "input").Raw

	var b []byte
	frame := func(typ string, fields func([]byte) []byte) {
		b = append(b[:0], `{"type":"`...)
		b = append(append(b, typ...), '"') // a constant with nothing to escape
		if hasSeq {
			b = append(b, `,"sequence_number":`...)
			b = strconv.AppendInt(b, w.nextSeq(base), 10)
			base++
		}
		if outputIndex.Exists() {
			b = append(b, `,"output_index":`...)
			b = append(b, outputIndex.Raw...)
		}
		b = fields(b)
		b = append(b, '}')
		name := ""
		if ev.Name != "" {
			name = typ
		}
		out = sse.Append(out, name, b)
	}
	frame("response.output_item.added", func(b []byte) []byte {
		return append(append(b, `,"item":`...), added...)
	})
	frame("response.custom_tool_call_input.done", func(b []byte) []byte {
		if id.Exists() {
			b = append(append(b, `,"item_id":`...), id.Raw...)
		}
		return append(append(b, `,"input":`...), carrierInput...)
	})
	frame("response.output_item.done", func(b []byte) []byte {
		return append(append(b, `,"item":`...), c...)
	})
	return out
}
