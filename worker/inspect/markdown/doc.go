// Package markdown owns inspect_file's Markdown outline: the top-level
// scalar keys of YAML front matter (frontmatter.go, read by
// go.yaml.in/yaml/v3) and every heading as CommonMark reads it, each
// spanning its section. A one-pass block scanner (blocks.go, syntax.go)
// finds the headings — ATX and setext, in block quotes and list items
// too, never inside fenced or indented code or HTML blocks — and
// CommonMark's inline rules (inline.go, links.go) give their text. No
// Markdown library: goldmark's package initialisation cost about 2 ms at
// every start of the router binary, which is also the worker. The cost
// is linear in the file whatever its nesting.
package markdown
