package request

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"hpatch-router/jsonline"
	"hpatch-router/plugins"
	"hpatch-router/shebang"
)

// ownerRewrite is the rewrite of one exec tool object, as offsets relative
// to the start of the object. It depends only on the object's bytes, so it
// can be computed once and reused for every request that repeats them;
// it is never modified after construction.
type ownerRewrite struct {
	descStart, descEnd int    // span of the description value; descRepl nil: unchanged
	descRepl           []byte // the trimmed description as a JSON string
	toolLen            int    // length of the exec object; the insert goes there
	insert             []byte // ",<shell>,<hpatch>" placed right after the object
	shape              shebang.ParamsShape
}

// newOwnerRewrite trims the exec description and renders the injected
// tools with the #!params shape taken from it.
func newOwnerRewrite(tool gjson.Result, tools plugins.Tools) (*ownerRewrite, error) {
	rw := &ownerRewrite{toolLen: len(tool.Raw)}
	if d := tool.Get("description"); d.Type == gjson.String {
		// Get's Index counts from the start of the document tool came
		// from; the span is kept relative to the tool object.
		s := d.Index - tool.Index
		if s <= 0 || s+len(d.Raw) > len(tool.Raw) || tool.Raw[s:s+len(d.Raw)] != d.Raw {
			return nil, invalid(CodeInvalidJSON, "cannot locate the exec description in the request body")
		}
		desc := d.String()
		t := trimExecDescription(desc)
		rw.shape = t.Shape
		for i := range rw.shape.Params {
			// Names are substrings of the description, which may alias
			// the request body; a memo entry must not pin that body.
			// (Type literals are decoded copies.)
			rw.shape.Params[i].Name = strings.Clone(rw.shape.Params[i].Name)
		}
		if t.Description != desc {
			rw.descStart, rw.descEnd = s, s+len(d.Raw)
			rw.descRepl = jsonline.AppendSerdeString(nil, t.Description)
		}
	}
	shell, err := shellTool(rw.shape, tools)
	if err != nil {
		return nil, err
	}
	hp := tools.Hpatch
	ins := make([]byte, 0, len(shell)+len(hp)+2)
	rw.insert = append(append(append(append(ins, ','), shell...), ','), hp...)
	return rw, nil
}

// appendEdits adds this rewrite's edits for an exec object found at offset
// at in the body.
func (rw *ownerRewrite) appendEdits(edits []Edit, at int) []Edit {
	if rw.descRepl != nil {
		edits = append(edits, Edit{at + rw.descStart, at + rw.descEnd, rw.descRepl})
	}
	return append(edits, Edit{at + rw.toolLen, at + rw.toolLen, rw.insert})
}

// shellTool renders the `shell` tool with the request's #!params shape
// appended to the base description.
func shellTool(shape shebang.ParamsShape, tools plugins.Tools) ([]byte, error) {
	if shape.Fields == "" {
		return tools.Shell, nil
	}
	desc := tools.ShellDescription + plugins.ParamsSection(shape.Fields, shape.TypeScript)
	// sjson gets its own copy: the shared bytes are never written to.
	return sjson.SetRawBytes(slices.Clone(tools.Shell), "description", jsonline.AppendSerdeString(nil, desc))
}
