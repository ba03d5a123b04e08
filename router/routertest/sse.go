package routertest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// Event is one server-sent event as read off the wire.
type Event struct {
	Name string          // the "event:" field, or ""
	Data json.RawMessage // the joined "data:" lines
}

// Type is the data's "type" member.
func (e Event) Type() string { return gjson.GetBytes(e.Data, "type").String() }

// Seq is the data's sequence_number, or -1 when it has none.
func (e Event) Seq() int64 {
	s := gjson.GetBytes(e.Data, "sequence_number")
	if !s.Exists() {
		return -1
	}
	return s.Int()
}

// ParseSSE reads a whole event stream (e.g. a router response body).
// Comment lines and events without data are skipped.
func ParseSSE(r io.Reader) ([]Event, error) {
	var (
		out  []Event
		cur  Event
		data [][]byte
	)
	flush := func() {
		if len(data) > 0 {
			cur.Data = json.RawMessage(bytes.Join(data, []byte("\n")))
			out = append(out, cur)
		}
		cur, data = Event{}, nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxBody)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			cur.Name = strings.TrimPrefix(strings.TrimPrefix(line, "event:"), " ")
		case strings.HasPrefix(line, "data:"):
			data = append(data, []byte(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")))
		case strings.HasPrefix(line, "id:"), strings.HasPrefix(line, "retry:"):
		default:
			return out, fmt.Errorf("routertest: malformed SSE line %q", line)
		}
	}
	flush()
	return out, sc.Err()
}
