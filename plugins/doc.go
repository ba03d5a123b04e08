// Package plugins holds the built-in `shell` and `hpatch` tool
// declarations (plugins/shell.mjs, and plugins/hpatch.lark, the grammar
// hpatch calls are constrained to) and the generated bundle the router
// embeds, so the model-visible tool definitions have one source of truth.
//
// The tools users declare (DESIGN §12) live in the subpackages, so this
// one stays the built-ins' declarations: plugins/registry loads and
// validates tool files and owns which custom tools the router adds (the
// built-ins included), plugins/grammar checks their Lark and regex
// grammars, and plugins/examples holds the example tool files README
// documents (their tests are in plugins/registry).
package plugins
