package router

import (
	"net/http"

	"github.com/tidwall/gjson"

	"hpatch-router/router/request"
	"hpatch-router/workspace"
)

// turnWorkspace is where the turn a request belongs to runs, as Codex
// declared it in that request: the cwd and workspace roots of the last
// environment_context item Codex wrote in its input (read with the rest
// of the request, request.Parsed.Workspace), and sandbox_mode
// from its x-codex-turn-metadata header. A workspace hpatch call resolves
// its paths against these (never against the router's own cwd); the
// sandbox mode is recorded with the call, since Codex's sandbox, not the
// router, decides whether the write may happen.
type turnWorkspace struct {
	env     workspace.Env
	sandbox string
}

// readTurnWorkspace reads where the turn of req runs. It runs only for a
// workspace hpatch call.
func readTurnWorkspace(req *request.Parsed, h http.Header) turnWorkspace {
	tw := turnWorkspace{env: req.Workspace}
	tw.sandbox = gjson.Get(h.Get("x-codex-turn-metadata"), "sandbox_mode").String()
	return tw
}
