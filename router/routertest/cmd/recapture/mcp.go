package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// serveMiniMCP is a minimal MCP stdio server (newline-delimited JSON-RPC)
// with one tool, echo_text. Notifications get no answer; unknown methods
// get "method not found".
func serveMiniMCP(r io.Reader, w io.Writer) error {
	tool := map[string]any{
		"name": "echo_text", "description": "Echo the given text back.",
		"inputSchema": map[string]any{"type": "object",
			"properties": map[string]any{"text": map[string]any{"type": "string"}},
			"required":   []string{"text"}},
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	enc := json.NewEncoder(w)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				Arguments       struct {
					Text string `json:"text"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			return err
		}
		if len(msg.ID) == 0 || string(msg.ID) == "null" {
			continue
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": msg.ID}
		switch msg.Method {
		case "initialize":
			pv := msg.Params.ProtocolVersion
			if pv == "" {
				pv = "2025-06-18"
			}
			reply["result"] = map[string]any{"protocolVersion": pv, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "mini", "version": "0.0.1"}}
		case "tools/list":
			reply["result"] = map[string]any{"tools": []any{tool}}
		case "tools/call":
			reply["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: " + msg.Params.Arguments.Text}}, "isError": false}
		default:
			reply["error"] = map[string]any{"code": -32601, "message": "method not found"}
		}
		if err := enc.Encode(reply); err != nil {
			return err
		}
	}
	return sc.Err()
}
