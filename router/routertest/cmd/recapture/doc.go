// Command recapture re-records the Codex wire captures under
// testdata/codex/captures from the real Codex CLI, played against the
// routertest fake upstream. scripts/recapture.sh runs it from the
// repository root.
//
//	recapture [--codex BIN] [--out DIR] [--codex-0144 BIN] [--codex-0147 BIN] [SCENARIO…]
//
// With no SCENARIO every scenario is recorded. Each lands in DIR/SCENARIO:
// NNN-post.json (request bodies, indented), NNN-post.hdr / NNN-get.hdr
// (request line and headers), server.log and codex-version.txt, plus
// codex.out or appserver.jsonl. Scenarios needing an older Codex
// (flat-0.144.0-*, namespaced-0.147.0-cli) are skipped unless its binary is
// given.
//
// `recapture mini-mcp` is a one-tool MCP stdio server (echo_text), used by
// the incremental-tools scenario to change Codex's tool set between turns.
package main
