package router

import (
	"bytes"
	"testing"
)

func TestMentionsCustomToolCall(t *testing.T) {
	for _, c := range []struct {
		body string
		want bool
	}{
		{``, false},
		{`"custom_tool_call"`, true},
		{`{"type":"custom_tool_call","name":"exec"}`, true},
		{`custom_tool_call"`, false},
		{`"custom_tool_call`, false},
		{`"mcp_tool_call" and "custom_tool_calls"`, false},
		{`x_tool_call" "custom_tool_call"`, true},
		{`"custom"_tool_call"`, false},
		{`"custoM_tool_call"`, false},
		{`xcustom_tool_call"`, false},
		{`_tool_call""custom_tool_call"`, true},
		{`"custom\u005ftool_call"`, false}, // as bytes.Contains: escapes are not decoded
	} {
		if got := mentionsCustomToolCall([]byte(c.body)); got != c.want {
			t.Errorf("%s: %v, want %v", c.body, got, c.want)
		}
	}
}

// The scan agrees with bytes.Contains on any input.
func FuzzMentionsCustomToolCall(f *testing.F) {
	for _, s := range []string{`"custom_tool_call"`, `_tool_call"`, `"custom"custom_tool_call"`, `{"a":"b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := mentionsCustomToolCall(b), bytes.Contains(b, []byte(`"custom_tool_call"`)); got != want {
			t.Fatalf("%q: %v, bytes.Contains says %v", b, got, want)
		}
	})
}
