package request

import (
	"slices"

	"hpatch-router/plugins/registry"
)

// Declared tools (DESIGN §12): package registry loads and validates them;
// a request offers each tool in service when it arrived beside shell and
// hpatch in the owner's container, unless the request defines the name
// there itself. Info.Tools are the ones offered: a call of one becomes a
// carrier in the response.

// toolOffer is what a request offers of a set in one owner container:
// the tools whose names the request does not define there, and the bytes
// inserted after the built-ins.
type toolOffer struct {
	tools   []*registry.Tool
	insert  []byte
	skipped []string
}

// offerTools decides the offer for the owner container namespace. The
// bytes depend only on the set and the names the request defines, so the
// same request gives the same bytes.
func offerTools(set *registry.Set, items []ownerItem, namespace string) toolOffer {
	if set.Len() == 0 {
		return toolOffer{}
	}
	var skipped []string
	for _, t := range set.Tools {
		if definesName(items, namespace, t.Name) {
			skipped = append(skipped, t.Name)
		}
	}
	if len(skipped) == 0 {
		return toolOffer{tools: set.Tools, insert: set.Inject()}
	}
	var o toolOffer
	o.skipped = skipped
	for _, t := range set.Tools {
		if !slices.Contains(skipped, t.Name) {
			o.tools = append(o.tools, t)
			o.insert = append(append(o.insert, ','), t.JSON...)
		}
	}
	return o
}

// definesName reports whether an additional_tools item defines name in
// the container namespace.
func definesName(items []ownerItem, namespace, name string) bool {
	for _, it := range items {
		for _, n := range it.an.names {
			if n.container == namespace && n.name == name {
				return true
			}
		}
	}
	return false
}

// appendTo adds the offer's insertion right after an owner's own edits
// (whose last one inserts the built-ins at the end of the exec object).
func (o toolOffer) appendTo(edits []Edit) []Edit {
	if len(o.insert) == 0 || len(edits) == 0 {
		return edits
	}
	at := edits[len(edits)-1].End
	return append(edits, Edit{at, at, o.insert})
}
