package shebang

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExecPragma(t *testing.T) {
	for _, c := range []struct {
		name, args, want string
	}{
		{"no budget: no pragma (the carrier bytes stay as before)", `{"cmd":"ls","login":false}`, ""},
		{"max_output_tokens doubles for JSON escapes, plus the wrapper", `{"cmd":"ls","max_output_tokens":40000}`, `// @exec: {"max_output_tokens": 81000}` + "\n"},
		{"yield_time_ms outlasts the command", `{"cmd":"ls","yield_time_ms":1000}`, `// @exec: {"yield_time_ms": 11000}` + "\n"},
		{"both, in the order Codex documents", `{"cmd":"ls","max_output_tokens":0,"yield_time_ms":30000}`, `// @exec: {"yield_time_ms": 40000, "max_output_tokens": 1000}` + "\n"},
		{"past uint64: Codex answers it", `{"max_output_tokens":99999999999999999999}`, ""},
		{"a large budget saturates", `{"max_output_tokens":4000000000}`, `// @exec: {"max_output_tokens": 2147483647}` + "\n"},
		{"negative: Codex answers it", `{"max_output_tokens":-1}`, ""},
		{"fraction: Codex answers it", `{"max_output_tokens":1.5}`, ""},
		{"exponent: Codex answers it", `{"max_output_tokens":1e4}`, ""},
		{"string: Codex answers it", `{"max_output_tokens":"100"}`, ""},
		{"null", `{"yield_time_ms":null}`, ""},
		{"not an object", `[1]`, ""},
		{"not JSON", `{`, ""},
	} {
		if got := ExecPragma([]byte(c.args)); got != c.want {
			t.Errorf("%s: ExecPragma(%s) = %q, want %q", c.name, c.args, got, c.want)
		}
	}
}

// TestCarrierPragma: a shell call whose #!params asks for a budget gets the
// pragma as the carrier's first line (Codex reads it only there); without
// one the carrier is unchanged, and a template or recovered plan gets it
// too.
func TestCarrierPragma(t *testing.T) {
	for _, c := range []struct {
		in, first string
	}{
		{"#!params={\"max_output_tokens\":40000}\nseq 1 10\n", `// @exec: {"max_output_tokens": 81000}`},
		{"#!python3\n#!params={\"yield_time_ms\":500,\"max_output_tokens\":10}\nprint(1)\n", `// @exec: {"yield_time_ms": 10500, "max_output_tokens": 1020}`},
		{"#!params={\"max_output_tokens\":5}\n#!cmd=cat f | {.}\nwc -l\n", `// @exec: {"max_output_tokens": 1010}`},
		{"```python\n#!params={\"max_output_tokens\":5}\nprint(1)\n```", `// @exec: {"max_output_tokens": 1010}`},
		{"#!params={\"workdir\":\"/tmp\"}\nls\n", "const result = await tools.exec_command("},
		{"ls\n", "const result = await tools.exec_command("},
	} {
		p, err := Translate(c.in, Options{})
		if err != nil {
			t.Fatalf("Translate(%q): %v", c.in, err)
		}
		carrier := p.Carrier(Retention{})
		first, rest, _ := strings.Cut(carrier, "\n")
		if !strings.HasPrefix(first, c.first) {
			t.Errorf("Translate(%q): carrier starts %q, want %q", c.in, first, c.first)
		}
		if strings.HasPrefix(first, "//") && !strings.HasPrefix(rest, "const result = await tools.exec_command(") {
			t.Errorf("Translate(%q): the pragma must stand alone before the call:\n%s", c.in, carrier)
		}
	}
}

// FuzzExecPragma: whatever the arguments, the pragma is absent or one line
// that holds a JSON object of Codex's two fields with non-negative integer
// budgets no smaller than what the arguments asked for.
func FuzzExecPragma(f *testing.F) {
	for _, s := range []string{`{"max_output_tokens":40000}`, `{"yield_time_ms":1,"max_output_tokens":2}`, `{"max_output_tokens":-3}`, `{}`, `x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		got := ExecPragma(args)
		if got == "" {
			return
		}
		obj, ok := strings.CutPrefix(got, "// @exec: ")
		if !ok || !strings.HasSuffix(obj, "}\n") || strings.Count(got, "\n") != 1 {
			t.Fatalf("pragma %q", got)
		}
		var budget map[string]json.Number
		dec := json.NewDecoder(strings.NewReader(obj))
		dec.UseNumber()
		if err := dec.Decode(&budget); err != nil || len(budget) == 0 {
			t.Fatalf("pragma %q: %v", got, err)
		}
		var asked map[string]json.RawMessage
		_ = json.Unmarshal(args, &asked)
		for k, v := range budget {
			n, err := v.Int64()
			if k != "yield_time_ms" && k != "max_output_tokens" || err != nil || n < 0 {
				t.Fatalf("pragma %q: field %s=%s", got, k, v)
			}
			if a, ok := pragmaInt(asked[k]); !ok || n < a {
				t.Fatalf("pragma %q grants %s=%d, asked %s", got, k, n, asked[k])
			}
		}
	})
}
