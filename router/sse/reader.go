package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Event is one server-sent event as it arrived: Raw holds its exact
// bytes, including the blank line that ended it, so an event a relay
// does not change is written back byte for byte.
type Event struct {
	Raw     []byte
	Name    string // the `event:` field, "" when absent
	Data    []byte // `data:` lines joined with "\n"
	HasData bool
	// Complete is false for trailing bytes the stream ended in before the
	// blank line that would have dispatched them.
	Complete bool
}

// ErrEventTooLarge reports an event over the size bound.
var ErrEventTooLarge = errors.New("server-sent event exceeds the size bound")

// Reader splits a byte stream into events. Lines end in LF or CRLF (a
// lone CR stays part of the line). The event Next returns, with its Raw and
// Data, is reused by the following call: use or copy it before then.
type Reader struct {
	br   *bufio.Reader
	max  int
	ev   Event
	data bytes.Buffer
	// names interns event names: a stream repeats a few names thousands
	// of times, and a string per event was most of the reader's garbage.
	names map[string]string
	// Out is a buffer the reader's user keeps with it: a relay's output
	// for this stream, pooled with the reader so a response does not grow
	// a new one. The reader never reads or writes it; Pool.Put empties it.
	Out []byte
}

// maxInternedNames bounds the names a Reader keeps.
const maxInternedNames = 64

// NewReader returns a reader of r that refuses an event over max bytes
// (ErrEventTooLarge).
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 16<<10), max: max, names: map[string]string{}}
}

// maxPooledEvent is the largest event buffer a pooled reader keeps; a
// reader that grew past it for one huge event is dropped, not pooled.
const maxPooledEvent = 256 << 10

// Pool reuses readers across responses: a reader's 16 KiB line
// buffer and its event buffers were most of what relaying a stream
// allocated. The interned names stay (they are the same few names).
type Pool struct {
	pool sync.Pool
	max  int // event size bound of the readers it makes
}

// NewPool returns a pool of readers that refuse an event over max bytes.
func NewPool(max int) *Pool { return &Pool{max: max} }

// Get returns a reader of r that starts as a new one would.
func (p *Pool) Get(r io.Reader) *Reader {
	s, ok := p.pool.Get().(*Reader)
	if !ok {
		return NewReader(r, p.max)
	}
	s.br.Reset(r)
	return s
}

// Put returns s to the pool once its stream is done; nothing it returned
// may be used afterwards.
func (p *Pool) Put(s *Reader) {
	if cap(s.ev.Raw) > maxPooledEvent || s.data.Cap() > maxPooledEvent || cap(s.Out) > maxPooledEvent {
		return
	}
	s.Out = s.Out[:0]
	s.br.Reset(nil)
	s.ev = Event{Raw: s.ev.Raw[:0]}
	s.data.Reset()
	p.pool.Put(s)
}

// Buffered reports whether a whole event has already arrived and waits to
// be parsed. A writer flushes when none has, so events that arrived
// together leave together and no event waits for bytes still to come.
func (s *Reader) Buffered() bool {
	n := s.br.Buffered()
	if n < 2 {
		return false
	}
	b, _ := s.br.Peek(n)
	return hasBlankLine(b)
}

// hasBlankLine reports whether b holds "\n\n" or "\n\r\n", in one pass.
func hasBlankLine(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 || i+1 >= len(b) {
			return false
		}
		b = b[i+1:]
		if b[0] == '\n' || b[0] == '\r' && len(b) > 1 && b[1] == '\n' {
			return true
		}
	}
}

// name returns v as an interned string.
func (s *Reader) name(v []byte) string {
	if n, ok := s.names[string(v)]; ok { // no allocation for the lookup
		return n
	}
	n := string(v)
	if len(s.names) < maxInternedNames {
		s.names[n] = n
	}
	return n
}

// Next returns the next event. At the end of the stream it returns io.EOF,
// after returning any trailing bytes as an event with Complete false.
func (s *Reader) Next() (*Event, error) {
	ev := &s.ev
	*ev = Event{Raw: ev.Raw[:0]}
	s.data.Reset()
	for {
		line, err := s.readLine(len(ev.Raw))
		if len(line) > 0 {
			start := len(ev.Raw)
			ev.Raw = append(ev.Raw, line...)
			line = ev.Raw[start:] // the reader's buffer moves on; Raw stays
			content := trimEOL(line)
			if len(content) == len(line) { // no terminator: stream ended mid-line
				s.field(ev, &s.data, content)
				break
			}
			if len(content) == 0 {
				ev.Complete = true
				break
			}
			s.field(ev, &s.data, content)
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(ev.Raw) == 0 {
				return nil, io.EOF
			}
			if !errors.Is(err, io.EOF) {
				return nil, err
			}
			break
		}
	}
	if ev.HasData {
		ev.Data = s.data.Bytes()
	}
	return ev, nil
}

// readLine reads one line with its terminator; have is the size of the
// event so far, for the bound. The line may alias the bufio buffer: copy
// it before the next read.
func (s *Reader) readLine(have int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.br.ReadSlice('\n')
		if have+len(line)+len(chunk) > s.max {
			return nil, fmt.Errorf("%w (%d bytes)", ErrEventTooLarge, s.max)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			line = append(line, chunk...)
			continue
		}
		if line == nil {
			return chunk, err
		}
		return append(line, chunk...), err
	}
}

func trimEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}

// field applies one non-empty line to ev (comments are ignored).
func (s *Reader) field(ev *Event, data *bytes.Buffer, line []byte) {
	if line[0] == ':' {
		return
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		ev.Name = s.name(value)
	case "data":
		if ev.HasData {
			data.WriteByte('\n')
		}
		data.Write(value)
		ev.HasData = true
	}
}

// Append renders an event a relay makes or changes: an `event:`
// line when name is not empty, one `data:` line per line of data and the
// blank line.
func Append(dst []byte, name string, data []byte) []byte {
	if name != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, name...)
		dst = append(dst, '\n')
	}
	for {
		i := bytes.IndexByte(data, '\n')
		dst = append(dst, "data: "...)
		if i < 0 {
			dst = append(dst, data...)
			break
		}
		dst = append(dst, data[:i]...)
		dst = append(dst, '\n')
		data = data[i+1:]
	}
	return append(dst, '\n', '\n')
}
