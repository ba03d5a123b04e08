// Package inspect owns the private command inspect_file: one JSON envelope
// with a file's metadata and a bounded structural outline whose positions
// are LINE:HASH strings, so an agent can cite and edit a declaration without
// reading the file.
//
// Parsers, one file each (run only in the outline process, see below): Go
// through go/parser (golang.go); Markdown by a one-pass CommonMark block
// scanner (markdown.go, mdblocks.go; heading text by CommonMark's inline
// rules, mdinline.go) with YAML front matter read by go.yaml.in/yaml/v3
// (frontmatter.go) — no Markdown library: goldmark's package init costs
// about 2 ms at every start of this executable; JSON by
// streaming encoding/json tokens (jsonfile.go); Python by a tokenizer
// that follows tree-sitter's indentation rules (python.go,
// python_outline.go); JavaScript, TypeScript and TSX by a tokenizer that
// knows what hides a brace (strings, comments, templates, regular
// expressions, JSX) and a statement reader with automatic semicolon
// insertion (script_scan.go, script.go, script_members.go). Each gives
// the entries tree-sitter's grammar gave (the package used them through
// cgo until the worker's start-up cost asked for one static Go binary);
// their tests hold the cases and say where they differ. Positions
// come from byte offsets mapped onto the project's rows (LF, CRLF and lone
// CR end a line; lines.go), never from a parser's own line counting.
//
// Envelope: data.kind is "source" (Go, Python, JavaScript, TypeScript),
// "markup" (Markdown), "data" (JSON) or "text" (no parser: empty outline,
// parse_complete false); parse_complete is false when the parser recovered
// from errors (the outline holds what parsed). Entries: import, constant,
// variable, type, class, function, method (receiver), heading (level; spans
// its section), front_matter (key), pointer (RFC 6901, value_type; depth at
// most 3). When the outline does not fit MaxOutput, trailing entries are
// dropped, truncated is true, truncation gives limit_bytes,
// entries_shown and entries_total, and the exit status is
// privcmd.ExitTruncated (3) instead of 0.
//
// The outline never carries source bodies or values: names, kinds,
// receivers, heading levels, front matter keys and JSON value types only.
// Outline (for hsymbol) exposes the same entries with numeric lines.
//
// Bounds (env.Limits, owned by privcmd): the file is read through
// privcmd.ReadFile (regular files only, at most Input bytes, one
// snapshot); a linear pre-scan (nesting.go) refuses files nesting deeper
// than Depth; no parser runs in the worker: Outline starts this executable
// again as ChildArg0 (ChildMain, child.go and childmain.go), whose memory
// is watched and capped (Memory) and which is killed at the command's
// deadline (Time), so a pathological input costs at most that and a
// crashing parser only its own process. Stopped early, inspect_file answers
// {"ok":false} with code input_limit, depth_limit, time_limit or
// memory_limit and a message saying how to read the file instead; exit
// 1, except privcmd.ExitTimeLimit (124) for time_limit.
package inspect
