// Package plugins holds the built-in `shell` tool declaration
// (plugins/shell.mjs) and the generated bundle the router embeds, so the
// model-visible tool definition has one source of truth.
package plugins
