package shebang

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// The exec output budget (DESIGN §4, FACTS §11). Code Mode's exec cell
// truncates its direct results to 10,000 tokens and yields after 30,000 ms
// unless the input's first line is the pragma
//
//	// @exec: {"yield_time_ms": N, "max_output_tokens": N}
//
// The carrier prints the whole exec_command result as JSON, so when a call
// asks exec_command for more output or a longer wait, the cell must allow
// at least as much, or it cuts the JSON in the middle (or yields before
// the command returns). ExecPragma is the one rule that turns an
// exec_command argument object into that line, for shell calls and for
// every other carrier built from a tool's params.

const (
	// cellTokenHeadroom covers what the carrier prints beside the command
	// output: the result's other fields (chunk_id, wall time, exit code,
	// token count), retained/script_ref, warnings and notes, and the
	// marker exec_command puts where it cut the output.
	cellTokenHeadroom = 1000
	// cellYieldHeadroomMS lets the cell outlast the command's own yield
	// by the time Codex needs to start the command (sandbox setup).
	cellYieldHeadroomMS = 10000
	// maxPragmaValue keeps a budget within every integer type Codex may
	// read it into.
	maxPragmaValue = math.MaxInt32
)

// ExecPragma is the first line (with its LF) an exec input needs so that
// the cell returns what an exec_command call with the argument object args
// may produce, or "" when args sets neither max_output_tokens nor
// yield_time_ms as a non-negative integer (the cell's defaults then
// apply; Codex answers a malformed value itself).
//
// The output budget is twice the command's plus cellTokenHeadroom:
// JSON.stringify escapes the output, and doubling covers every output
// measured (plain text and logs grew 3–11%, JSON 6%, tab-separated
// columns 40%, colored grep 69%); only text made mostly of control
// characters other than \n and \t, each escaped in 6 bytes, can exceed
// it. The yield is the command's plus cellYieldHeadroomMS, so the cell
// never yields before the command does.
func ExecPragma(args []byte) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil {
		return ""
	}
	yield, hasYield := pragmaInt(fields["yield_time_ms"])
	tokens, hasTokens := pragmaInt(fields["max_output_tokens"])
	if !hasYield && !hasTokens {
		return ""
	}
	var b bytes.Buffer
	b.WriteString("// @exec: {")
	if hasYield {
		b.WriteString(`"yield_time_ms": `)
		b.WriteString(strconv.FormatInt(capPragma(yield+cellYieldHeadroomMS), 10))
	}
	if hasTokens {
		if hasYield {
			b.WriteString(", ")
		}
		b.WriteString(`"max_output_tokens": `)
		b.WriteString(strconv.FormatInt(capPragma(2*tokens+cellTokenHeadroom), 10))
	}
	b.WriteString("}\n")
	return b.String()
}

// pragmaInt reads a non-negative JSON integer no larger than
// maxPragmaValue (larger ones saturate later).
func pragmaInt(raw json.RawMessage) (int64, bool) {
	n, err := strconv.ParseUint(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil {
		return 0, false
	}
	return int64(min(n, maxPragmaValue)), true
}

func capPragma(n int64) int64 { return min(n, maxPragmaValue) }
