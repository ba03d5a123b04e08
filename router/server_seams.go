package router

// requestFacts is what the response rewrite needs to know about the
// request: whether the router owns a Code Mode exec tool in it, in which
// namespace ("" for the flat layout) and the #!params shape it offered.
type requestFacts struct {
	Owned      bool
	Namespace  string
	ParamNames []string
}

// requestRewriteFunc is the request rewrite seam (RewriteRequest).
type requestRewriteFunc func(body []byte) ([]byte, requestFacts, error)

// memoRequestRewrite adapts a RequestRewriter, which remembers whole
// additional_tools items (and checked top-level tools lists) by their
// bytes, so the item Codex repeats on every request of a thread costs a
// comparison instead of a rewrite.
func memoRequestRewrite(rr *RequestRewriter) requestRewriteFunc {
	return func(body []byte) ([]byte, requestFacts, error) {
		out, info, err := rr.Rewrite(body)
		if err != nil {
			return nil, requestFacts{}, err
		}
		return out, requestFacts{Owned: info.Owned, Namespace: info.Namespace, ParamNames: info.ParamNames}, nil
	}
}
