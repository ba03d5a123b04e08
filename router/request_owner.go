package router

import (
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
)

// injectedNames are the tools the router adds beside the owner; a request
// that already defines one there cannot be rewritten without shadowing it.
func isInjectedName(name string) bool { return name == "shell" || name == "hpatch" }

// checkTopLevelTools rejects Code Mode exec in the top-level `tools` list
// (A14): that layout (non-Lite models) has no additional_tools owner, and
// silently forwarding it would give the model a `shell` it never sees or a
// carrier Codex cannot place. It also reports which injected names exist at
// top level, because a flat owner shares their call namespace.
func checkTopLevelTools(tools gjson.Result) (injected string, err error) {
	tools.ForEach(func(k, t gjson.Result) bool {
		name := t.Get("name").String()
		switch {
		case name == "exec" || name == "functions.exec":
			err = invalidRequest(CodeUnsupportedToolLayout,
				"top-level tools[%d] is the Code Mode tool %q; only the additional_tools layout of Responses-Lite models is supported (use a Responses-Lite model or --mode passthrough)",
				k.Int(), name)
		case t.Get("type").String() == "namespace":
			t.Get("tools").ForEach(func(_, nt gjson.Result) bool {
				if nt.Get("name").String() == "exec" {
					err = invalidRequest(CodeUnsupportedToolLayout,
						"top-level tools[%d] namespace %q defines the Code Mode tool exec; only the additional_tools layout of Responses-Lite models is supported (use a Responses-Lite model or --mode passthrough)",
						k.Int(), name)
				}
				return err == nil
			})
		case isInjectedName(name) && injected == "":
			injected = name
		}
		return err == nil
	})
	return injected, err
}

// containerUse records, per container ("functions" namespace or "" for the
// flat list), an injected name already defined there and where.
type containerUse struct {
	name string
	item int64
}

// findOwners scans every additional_tools input item (Codex appends a new
// one when tools change, and the latest definition of a name wins) and
// returns each eligible exec owner in body order. An eligible owner is a
// custom tool named exec either in the `functions` namespace of the item's
// tools or directly in the item's tools list.
func findOwners(input gjson.Result, topInjected string) ([]owner, error) {
	var owners []owner
	var err error
	taken := map[string]containerUse{}
	if topInjected != "" {
		taken[""] = containerUse{name: topInjected, item: -1}
	}
	input.ForEach(func(k, item gjson.Result) bool {
		if item.Get("type").String() != "additional_tools" {
			return true
		}
		var found []owner
		found, err = itemOwners(k.Int(), item, taken)
		owners = append(owners, found...)
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	for _, o := range owners {
		if use, ok := taken[o.namespace]; ok {
			where := "the top-level tools"
			if use.item >= 0 {
				where = fmt.Sprintf("input[%d] (additional_tools)", use.item)
			}
			return nil, invalidRequest(CodeToolNameConflict,
				"a tool named %q already exists %s in %s; it would collide with the injected %q tool",
				use.name, containerName(o.namespace), where, use.name)
		}
	}
	return owners, nil
}

// itemOwners inspects one additional_tools item. More than one eligible
// owner in one item is ambiguous (which exec would carriers target?) and
// rejects; so does a dotted `functions.exec` entry, which Codex itself
// does not dispatch (FACTS §3.2).
func itemOwners(idx int64, item gjson.Result, taken map[string]containerUse) ([]owner, error) {
	var found []owner
	var err error
	note := func(container, name string) {
		if _, dup := taken[container]; !dup && isInjectedName(name) {
			taken[container] = containerUse{name: name, item: idx}
		}
	}
	item.Get("tools").ForEach(func(_, t gjson.Result) bool {
		typ, name := t.Get("type").String(), t.Get("name").String()
		switch {
		case name == "functions.exec":
			err = invalidRequest(CodeUnsupportedToolLayout,
				"input[%d] (additional_tools) has an entry named %q; declare exec inside the functions namespace or directly as exec",
				idx, name)
		case typ == "namespace":
			t.Get("tools").ForEach(func(_, nt gjson.Result) bool {
				nname := nt.Get("name").String()
				if name == "functions" && nname == "exec" && nt.Get("type").String() == "custom" {
					found = append(found, owner{namespace: name, tool: nt})
				}
				note(name, nname)
				return true
			})
		case name == "exec" && typ == "custom":
			found = append(found, owner{namespace: "", tool: t})
		default:
			note("", name)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if len(found) > 1 {
		return nil, invalidRequest(CodeDuplicateExecOwner,
			"input[%d] (additional_tools) defines %d Code Mode exec tools; exactly one is supported",
			idx, len(found))
	}
	return found, nil
}

// containerName describes where an owner lives, for error messages.
func containerName(namespace string) string {
	if namespace == "" {
		return "beside a flat exec owner"
	}
	return "in namespace " + strconv.Quote(namespace)
}
