package request

import "github.com/tidwall/gjson"

// requestOwners is what findOwners found in a request.
type requestOwners struct {
	hasTools bool        // the body has top-level tools: its owners are history
	items    []ownerItem // the additional_tools items, analysed, in order
}

// ownerItem is one analysed additional_tools item.
type ownerItem struct {
	idx   int64 // position in input, for error messages
	start int   // offset of the item object in the body
	an    *itemAnalysis
}

// findOwners checks the request's top-level tools and analyses its
// additional_tools items (through the memo: an item whose bytes it holds
// is not analysed again).
func findOwners(req *Parsed, memo *Rewriter) (requestOwners, error) {
	r := requestOwners{hasTools: req.hasTools}
	if req.hasTools {
		if err := checkTopLevelTools(req.tools); err != nil {
			return r, err
		}
	}
	for _, it := range req.additional {
		an, err := memo.analysis(it.Pos, it.Raw)
		if err != nil {
			return r, err
		}
		r.items = append(r.items, ownerItem{idx: it.Pos, start: it.Index, an: an})
	}
	return r, nil
}

// checkTopLevelTools rejects Code Mode exec in the top-level `tools` list
// (A14): that layout (non-Lite models) has no additional_tools owner, and
// silently forwarding it would give the model a `shell` it never sees or a
// carrier Codex cannot place.
func checkTopLevelTools(tools gjson.Result) (err error) {
	tools.ForEach(func(k, t gjson.Result) bool {
		name := t.Get("name").String()
		switch {
		case name == "exec" || name == "functions.exec":
			err = invalid(CodeUnsupportedToolLayout,
				"top-level tools[%d] is the Code Mode tool %q; only the additional_tools layout of Responses-Lite models is supported (use a Responses-Lite model or --mode passthrough)",
				k.Int(), name)
		case t.Get("type").String() == "namespace":
			t.Get("tools").ForEach(func(_, nt gjson.Result) bool {
				if nt.Get("name").String() == "exec" {
					err = invalid(CodeUnsupportedToolLayout,
						"top-level tools[%d] namespace %q defines the Code Mode tool exec; only the additional_tools layout of Responses-Lite models is supported (use a Responses-Lite model or --mode passthrough)",
						k.Int(), name)
				}
				return err == nil
			})
		}
		return err == nil
	})
	return err
}
