package router

import (
	"net/http"

	"github.com/tidwall/gjson"

	"hpatch-router/router/request"
	"hpatch-router/router/response"
)

// readTurnWorkspace reads where the turn of req runs (response.Turn):
// the workspace the request declared and the sandbox mode of its header. It runs only for a
// workspace hpatch call.
func readTurnWorkspace(req *request.Parsed, h http.Header) response.Turn {
	return response.Turn{Env: req.Workspace, Sandbox: gjson.Get(h.Get("x-codex-turn-metadata"), "sandbox_mode").String()}
}
