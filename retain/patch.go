package retain

import (
	"hpatch-router/hpatch"
	"hpatch-router/scriptref"
)

// ParsePatch parses an hpatch edit the model sent (hpatch.Parse), after
// refusing one written for another tool (foreignEdit): such input never
// parses, and the refusal names the tool it was meant for instead of its
// first unknown word.
func ParsePatch(text string) (*hpatch.Patch, error) {
	if err := foreignEdit(text); err != nil {
		return nil, err
	}
	return hpatch.Parse(text)
}

// applyPatch resolves and verifies every target of p against baseline (the
// current content of each script by artifact id) and returns the edited
// scripts in section order, each at most MaxScriptBytes. It is pure:
// nothing is written, and any stale hash, out-of-range row, overlap or
// missing script rejects the whole patch. A workspace edit is refused:
// its files are the workspace resolver's.
func applyPatch(p *hpatch.Patch, baseline map[string][]byte) ([]hpatch.Edit, error) {
	if p.Workspace {
		return nil, workspaceInStore(p)
	}
	edits := make([]hpatch.Edit, 0, len(p.Sections))
	for _, s := range p.Sections {
		base, ok := baseline[s.ID]
		if !ok {
			return nil, hpatch.WrapAt(s.Line, scriptMissing(scriptref.FormatRef(s.ID)))
		}
		e, err := s.Apply(base, MaxScriptBytes)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e)
	}
	return edits, nil
}

// workspaceInStore refuses a workspace edit given to the script store.
func workspaceInStore(p *hpatch.Patch) error {
	s := p.Sections[0]
	return hpatch.ErrorAt(s.Line, "%q is a workspace file, and this edit reached only the retained-script store; workspace edits are resolved by the router", clip(s.Path))
}
