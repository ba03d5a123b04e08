package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestMiniMCP(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo_text","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"resources/list"}`,
		``,
	}, "\n")
	var out bytes.Buffer
	if err := serveMiniMCP(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d replies, want 4 (the notification gets none):\n%s", len(lines), out.String())
	}
	want := []string{
		`"protocolVersion":"2025-03-26"`,
		`"name":"echo_text"`,
		`"text":"echo: hi"`,
		`"code":-32601`,
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) || !json.Valid([]byte(lines[i])) {
			t.Errorf("reply %d = %s, want it to contain %s", i, lines[i], w)
		}
	}
	if !strings.Contains(lines[3], `"id":"x"`) {
		t.Errorf("string id not echoed: %s", lines[3])
	}
}
