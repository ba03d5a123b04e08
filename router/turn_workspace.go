package router

import (
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"hpatch-router/workspace"
)

// turnWorkspace is where the turn a request belongs to runs, as Codex
// declared it in that request: the cwd and workspace roots of the last
// <environment_context> user message of its input, and sandbox_mode from
// its x-codex-turn-metadata header. A workspace hpatch call resolves its
// paths against these (never against the router's own cwd); the sandbox
// mode is recorded with the call, since Codex's sandbox, not the router,
// decides whether the write may happen.
type turnWorkspace struct {
	env     workspace.Env
	sandbox string
}

// readTurnWorkspace reads body (a /responses request) and its header. It
// runs only for a workspace hpatch call, so the input is walked only then.
func readTurnWorkspace(body []byte, h http.Header) turnWorkspace {
	var tw turnWorkspace
	tw.sandbox = gjson.Get(h.Get("x-codex-turn-metadata"), "sandbox_mode").String()
	last := ""
	gjson.GetBytes(body, "input").ForEach(func(_, item gjson.Result) bool {
		if item.Get("type").String() != "message" || item.Get("role").String() != "user" {
			return true
		}
		item.Get("content").ForEach(func(_, c gjson.Result) bool {
			if t := c.Get("text").String(); strings.Contains(t, "<environment_context>") {
				last = t
			}
			return true
		})
		return true
	})
	if last == "" {
		return tw
	}
	tw.env.Cwd = xmlText(between(last, "<cwd>", "</cwd>"))
	roots := between(last, "<workspace_roots>", "</workspace_roots>")
	for {
		r := between(roots, "<root>", "</root>")
		if r == "" {
			break
		}
		tw.env.Roots = append(tw.env.Roots, xmlText(r))
		roots = roots[strings.Index(roots, "</root>")+len("</root>"):]
	}
	return tw
}

// between is the text of s between the first open and the close after
// it, or "".
func between(s, open, close string) string {
	_, after, ok := strings.Cut(s, open)
	if !ok {
		return ""
	}
	in, _, ok := strings.Cut(after, close)
	if !ok {
		return ""
	}
	return in
}

// xmlText undoes the five XML entities, in case a path holds & or <.
func xmlText(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'", "&amp;", "&").Replace(s)
}
