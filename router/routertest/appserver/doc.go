// Package appserver drives `codex app-server` (JSON-RPC 2.0 over stdio,
// one JSON object per line) the way an IDE or Codex Desktop does, for
// end-to-end tests and for re-recording captures: initialize, initialized,
// thread/start, then turn/start per prompt until turn/completed. Server
// requests (approvals, dynamic tool calls) get a generic accept so a turn
// never hangs.
package appserver
