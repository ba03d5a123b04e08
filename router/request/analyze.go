package request

import (
	"strings"

	"github.com/tidwall/gjson"

	"hpatch-router/plugins"
	"hpatch-router/plugins/registry"
	"hpatch-router/shebang"
)

// itemAnalysis is what one additional_tools item contributes to a
// request's rewrite. It depends only on the item's bytes, so a memo can
// reuse it for every request that repeats them; it is never modified after
// construction, and it aliases no request body.
type itemAnalysis struct {
	// notes are the injected names the item already defines, the first
	// per container, in item order.
	notes []containerNote
	// names are every tool name the item defines, with its container, so
	// a declared tool of the same name is not offered (offerTools).
	names []containerNote
	// owner reports one eligible exec owner; the fields below describe it.
	owner bool
	// lacksExecCommand reports one exec tool whose description offers no
	// exec_command (offersExecCommand): it is no owner, and when it is the
	// latest definition the request passes through. otherCommand names
	// the command tool it offers instead, if one was recognised.
	lacksExecCommand bool
	otherCommand     string
	namespace        string              // "functions" or "" (flat)
	shape            shebang.ParamsShape // its #!params shape
	edits            []Edit              // the rewrite, as offsets into the item
}

// containerNote is an injected name found in a container ("functions"
// namespace or "" for the flat list) of an additional_tools item.
type containerNote struct {
	container, name string
}

// analyzeItem inspects one additional_tools item, raw being its validated
// object (no surrounding whitespace), at input index idx. An eligible
// owner is a custom tool named exec either in the `functions` namespace of
// the item's tools or directly in the item's tools list. More than one
// eligible owner in one item is ambiguous (which exec would carriers
// target?) and rejects; so does a dotted `functions.exec` entry, which
// Codex itself does not dispatch (FACTS §3.2).
func analyzeItem(idx int64, raw string, tools plugins.Tools) (*itemAnalysis, error) {
	an := &itemAnalysis{}
	// Parsed on its own, the item has Index 0, so every nested Index is an
	// offset into raw.
	item := gjson.Parse(raw)
	var found []gjson.Result
	var namespace string
	var err error
	note := func(container, name string) {
		an.names = append(an.names, containerNote{strings.Clone(container), strings.Clone(name)})
		if !isInjectedName(name) {
			return
		}
		for _, n := range an.notes {
			if n.container == container {
				return
			}
		}
		an.notes = append(an.notes, containerNote{strings.Clone(container), strings.Clone(name)})
	}
	item.Get("tools").ForEach(func(_, t gjson.Result) bool {
		typ, name := t.Get("type").String(), t.Get("name").String()
		switch {
		case name == "functions.exec":
			err = invalid(CodeUnsupportedToolLayout,
				"input[%d] (additional_tools) has an entry named %q; declare exec inside the functions namespace or directly as exec",
				idx, name)
		case typ == "namespace":
			t.Get("tools").ForEach(func(_, nt gjson.Result) bool {
				nname := nt.Get("name").String()
				if name == "functions" && nname == "exec" && nt.Get("type").String() == "custom" {
					found = append(found, nt)
					namespace = "functions"
				}
				note(name, nname)
				return true
			})
		case name == "exec" && typ == "custom":
			found = append(found, t)
			namespace = ""
		default:
			note("", name)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if len(found) > 1 {
		return nil, invalid(CodeDuplicateExecOwner,
			"input[%d] (additional_tools) defines %d Code Mode exec tools; exactly one is supported",
			idx, len(found))
	}
	if len(found) == 0 {
		return an, nil
	}
	tool := found[0]
	if ok, other := offersExecCommand(tool.Get("description").String()); !ok {
		an.lacksExecCommand, an.otherCommand = true, strings.Clone(other)
		return an, nil
	}
	if tool.Index <= 0 || tool.Index+len(tool.Raw) > len(raw) || raw[tool.Index:tool.Index+len(tool.Raw)] != tool.Raw {
		// gjson gives offsets for plain paths; guard anyway so a wrong
		// offset can never corrupt a forwarded request.
		return nil, invalid(CodeInvalidJSON, "cannot locate the exec tool in the request body")
	}
	rw, err := newOwnerRewrite(tool, tools)
	if err != nil {
		return nil, err
	}
	an.owner = true
	an.namespace = namespace
	an.shape = rw.shape
	an.edits = rw.appendEdits(make([]Edit, 0, 2), tool.Index)
	return an, nil
}

// isInjectedName reports the built-in tools the router adds beside the
// owner (package registry owns the list); a request that already defines
// one there cannot be rewritten without shadowing it.
func isInjectedName(name string) bool { return registry.IsBuiltin(name) }
