package router

import (
	"html"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"hpatch-router/workspace"
)

// turnWorkspace is where the turn a request belongs to runs, as Codex
// declared it in that request: the cwd and workspace roots of the last
// environment_context item Codex wrote in its input, and sandbox_mode
// from its x-codex-turn-metadata header. A workspace hpatch call resolves
// its paths against these (never against the router's own cwd); the
// sandbox mode is recorded with the call, since Codex's sandbox, not the
// router, decides whether the write may happen.
type turnWorkspace struct {
	env     workspace.Env
	sandbox string
}

// Codex's environment_context item (FACTS §2.2; every capture and Codex
// 0.169.0 checked): a message of role user whose one content item is
// input_text and is the whole element, from the open tag to the close tag.
// Text a user or a tool pasted, an environment_context block inside a
// longer message or output, is not Codex's and never says where the turn
// runs: it would let a pasted log widen what hpatch may write.
const (
	envContextOpen  = "<environment_context>"
	envContextClose = "</environment_context>"
)

// codexEnvContext returns the text of item when it is Codex's own
// environment_context item.
func codexEnvContext(item gjson.Result) (string, bool) {
	if item.Get("role").String() != "user" {
		return "", false
	}
	var part gjson.Result
	n := 0
	item.Get("content").ForEach(func(_, c gjson.Result) bool {
		part, n = c, n+1
		return n < 2
	})
	if n != 1 || part.Get("type").String() != "input_text" {
		return "", false
	}
	text := part.Get("text").String()
	if !strings.HasPrefix(text, envContextOpen) || !strings.HasSuffix(strings.TrimRight(text, " \t\r\n"), envContextClose) {
		return "", false
	}
	return text, true
}

// readTurnWorkspace reads where the turn of req runs. It runs only for a
// workspace hpatch call.
func readTurnWorkspace(req *request, h http.Header) turnWorkspace {
	tw := turnWorkspace{env: parseEnvContext(req.envContext)}
	tw.sandbox = gjson.Get(h.Get("x-codex-turn-metadata"), "sandbox_mode").String()
	return tw
}

// parseEnvContext reads the cwd and the workspace roots of Codex's
// environment_context text. Codex escapes <, >, &, ' and " in the values
// it writes (a path holding them, checked with Codex 0.169.0), so the
// first tag of a name is the real one; values are unescaped as HTML text
// (the five entities and numeric character references). Codex writes
// other characters, control characters included, as they are, which an
// XML decoder would refuse.
func parseEnvContext(text string) workspace.Env {
	var env workspace.Env
	if text == "" {
		return env
	}
	if cwd, ok := between(text, "<cwd>", "</cwd>"); ok {
		env.Cwd = html.UnescapeString(cwd)
	}
	roots, _ := between(text, "<workspace_roots>", "</workspace_roots>")
	for {
		r, ok := between(roots, "<root>", "</root>")
		if !ok {
			break
		}
		env.Roots = append(env.Roots, html.UnescapeString(r))
		roots = roots[strings.Index(roots, "</root>")+len("</root>"):]
	}
	return env
}

// between is the text of s between the first open and the close after
// it.
func between(s, open, close string) (string, bool) {
	_, after, ok := strings.Cut(s, open)
	if !ok {
		return "", false
	}
	in, _, ok := strings.Cut(after, close)
	return in, ok
}
