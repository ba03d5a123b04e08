package markdown

import (
	"go.yaml.in/yaml/v3"

	"hpatch-router/worker/inspect/outline"
)

// frontMatterKeys lists the top-level keys of YAML front matter whose
// values are scalars (plain, quoted or block scalars, or empty); keys whose
// values are sequences, mappings or aliases are not listed. firstLine is
// the row of the YAML's first line. ok is false when the YAML is invalid,
// as go.yaml.in/yaml/v3 reads it. Its size and nesting are bounded by the
// outline process's limits, like every file inspect_file reads.
func frontMatterKeys(y []byte, firstLine int) ([]outline.Entry, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(y, &doc); err != nil {
		return nil, false
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, true // empty, a sequence or a scalar: no keys
	}
	var entries []outline.Entry
	pairs := doc.Content[0].Content
	for i := 0; i+1 < len(pairs); i += 2 {
		key, value := pairs[i], pairs[i+1]
		if key.Kind != yaml.ScalarNode || value.Kind != yaml.ScalarNode {
			continue
		}
		row := firstLine + key.Line - 1
		entries = append(entries, outline.Entry{Kind: outline.KindFrontMatter, Name: key.Value, Start: row, End: row})
	}
	return entries, true
}
