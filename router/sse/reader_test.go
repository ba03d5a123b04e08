package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"
)

func readEvents(t testing.TB, r io.Reader, max int) ([]*Event, error) {
	t.Helper()
	return drainEvents(NewReader(r, max))
}

// drainEvents reads sr to its end, keeping a copy of every event.
func drainEvents(sr *Reader) ([]*Event, error) {
	var evs []*Event
	for {
		ev, err := sr.Next()
		if ev != nil { // the reader reuses ev: keep a copy
			c := *ev
			c.Raw, c.Data = bytes.Clone(ev.Raw), bytes.Clone(ev.Data)
			evs = append(evs, &c)
		}
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
	}
}

func TestSSEReader(t *testing.T) {
	cases := []struct {
		name, in string
		want     []Event // Raw is checked through concatenation
	}{
		{"named event", "event: a\ndata: {\"x\":1}\n\n", []Event{{Name: "a", Data: []byte(`{"x":1}`), HasData: true, Complete: true}}},
		{"CRLF and no space", "event:a\r\ndata:{}\r\n\r\n", []Event{{Name: "a", Data: []byte(`{}`), HasData: true, Complete: true}}},
		{"multi-line data", "data: a\ndata: b\n\n", []Event{{Data: []byte("a\nb"), HasData: true, Complete: true}}},
		{"comment only", ": keep-alive\n\n", []Event{{Complete: true}}},
		{"id and retry ignored", "id: 1\nretry: 5\ndata: x\n\n", []Event{{Data: []byte("x"), HasData: true, Complete: true}}},
		{"trailing partial", "data: a\n\ndata: {\"b", []Event{
			{Data: []byte("a"), HasData: true, Complete: true},
			{Data: []byte(`{"b`), HasData: true},
		}},
		{"blank lines", "\n\ndata: a\n\n", []Event{{Complete: true}, {Complete: true}, {Data: []byte("a"), HasData: true, Complete: true}}},
		{"empty data field", "data\n\n", []Event{{Data: []byte(""), HasData: true, Complete: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				evs, err := readEvents(t, r, 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				if len(evs) != len(tc.want) {
					t.Fatalf("got %d events, want %d", len(evs), len(tc.want))
				}
				var raw []byte
				for i, ev := range evs {
					w := tc.want[i]
					if ev.Name != w.Name || !bytes.Equal(ev.Data, w.Data) || ev.HasData != w.HasData || ev.Complete != w.Complete {
						t.Fatalf("event %d = %+v, want %+v", i, ev, w)
					}
					raw = append(raw, ev.Raw...)
				}
				if string(raw) != tc.in {
					t.Fatalf("raw bytes %q, want %q", raw, tc.in)
				}
			}
		})
	}
}

func TestSSEReaderBound(t *testing.T) {
	in := "data: " + strings.Repeat("x", 200) + "\n\n"
	if _, err := readEvents(t, strings.NewReader(in), 100); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("err %v", err)
	}
	if evs, err := readEvents(t, strings.NewReader(in+in), 300); err != nil || len(evs) != 2 {
		t.Fatalf("per-event bound: %d %v", len(evs), err)
	}
}

func TestAppendSSE(t *testing.T) {
	got := string(Append(nil, "e", []byte("{\n\"a\":1}")))
	if got != "event: e\ndata: {\ndata: \"a\":1}\n\n" {
		t.Fatalf("%q", got)
	}
	evs, _ := readEvents(t, strings.NewReader(got), 100)
	if string(evs[0].Data) != "{\n\"a\":1}" {
		t.Fatal("round trip")
	}
}

// FuzzSSEReader: the reader never panics, never loses or invents a byte
// (the events' Raw concatenate to the input), and an event rendered with
// Append parses back to the same name and data.
func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("event: response.created\ndata: {\"type\":\"response.created\"}\n\n"))
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: c\n\nid\n"))
	f.Add([]byte("\n\n\r\n:x"))
	f.Fuzz(func(t *testing.T, in []byte) {
		evs, err := readEvents(t, bytes.NewReader(in), 1<<16)
		if err != nil {
			if !errors.Is(err, ErrEventTooLarge) {
				t.Fatal(err)
			}
			return
		}
		var raw []byte
		for i, ev := range evs {
			raw = append(raw, ev.Raw...)
			if !ev.Complete && i != len(evs)-1 {
				t.Fatal("an incomplete event before the end")
			}
			if !ev.Complete || !ev.HasData || strings.ContainsAny(ev.Name, "\r\n") || bytes.ContainsRune(ev.Data, '\r') {
				continue
			}
			back, err := readEvents(t, bytes.NewReader(Append(nil, ev.Name, ev.Data)), 1<<17)
			if err != nil || len(back) != 1 || back[0].Name != ev.Name || !bytes.Equal(back[0].Data, ev.Data) {
				t.Fatalf("re-rendered event differs: %+v vs %+v", back, ev)
			}
		}
		if !bytes.Equal(raw, in) {
			t.Fatalf("raw bytes differ")
		}
	})
}

func TestSSEBlankLineScan(t *testing.T) {
	for in, want := range map[string]bool{
		"":                    false,
		"\n":                  false,
		"\n\n":                true,
		"data: x\n\r\n":       true,
		"data: x\n\r":         false,
		"data: x\ndata: y\n":  false,
		"a\nb\nc\n\nd":        true,
		"a\r\nb\r\n\r\n":      true,
		"\r\n\r":              false,
		"data: x\n data: y\n": false,
	} {
		if got := hasBlankLine([]byte(in)); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

// Event names are interned: the same name is one string, and many
// different names do not grow the table past its bound.
func TestSSEReaderInternsNames(t *testing.T) {
	var in strings.Builder
	for i := range 2 * maxInternedNames {
		in.WriteString("event: e" + strings.Repeat("x", i) + "\ndata: {}\n\nevent: common\ndata: {}\n\n")
	}
	sr := NewReader(strings.NewReader(in.String()), 1<<20)
	var names []string
	for {
		ev, err := sr.Next()
		if ev != nil && ev.Name == "common" {
			names = append(names, ev.Name)
		}
		if err != nil {
			break
		}
	}
	if len(names) != 2*maxInternedNames || unsafe.StringData(names[0]) != unsafe.StringData(names[len(names)-1]) {
		t.Fatalf("%d names; interned: %v", len(names), unsafe.StringData(names[0]) == unsafe.StringData(names[len(names)-1]))
	}
	if len(sr.names) > maxInternedNames {
		t.Fatalf("%d names kept", len(sr.names))
	}
}

// TestSSEReaderPoolStartsFresh reads streams through one pooled reader,
// each ending differently (mid-event, mid-line, too large, cleanly), and
// checks every reuse reads its own stream exactly as a new reader does:
// nothing of the previous stream's buffered bytes or event survives.
func TestSSEReaderPoolStartsFresh(t *testing.T) {
	streams := []string{
		"event: a\ndata: {\"x\":1}\n\nevent: b\ndata: {\"trailing\"",
		"data: " + strings.Repeat("y", 300) + "\n\n",
		"event: c\ndata: {}\n\ndata: {\"half\":",
		": comment\nevent: d\ndata: 1\ndata: 2\n\n",
		"data: {\"z\":3}\n\n",
	}
	pool := NewPool(200)
	for round := range 3 {
		for i, in := range streams {
			want, wantErr := readEvents(t, strings.NewReader(in), 200)
			sr := pool.Get(iotest.HalfReader(strings.NewReader(in)))
			got, err := drainEvents(sr)
			pool.Put(sr)
			if (err == nil) != (wantErr == nil) || len(got) != len(want) {
				t.Fatalf("round %d stream %d: pooled reader got %d events (%v), a new one %d (%v)", round, i, len(got), err, len(want), wantErr)
			}
			for k := range want {
				if !bytes.Equal(got[k].Raw, want[k].Raw) || !bytes.Equal(got[k].Data, want[k].Data) ||
					got[k].Name != want[k].Name || got[k].Complete != want[k].Complete {
					t.Fatalf("round %d stream %d event %d: pooled %q, new %q", round, i, k, got[k].Raw, want[k].Raw)
				}
			}
		}
	}
}
