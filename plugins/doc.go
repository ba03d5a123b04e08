// Package plugins holds the built-in `shell` and `hpatch` tool
// declarations (plugins/shell.mjs, and plugins/hpatch.lark, the grammar
// hpatch calls are constrained to) and the generated bundle the router
// embeds, so the model-visible tool definitions have one source of truth.
package plugins
