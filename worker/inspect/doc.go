// Package inspect owns the private command inspect_file: one JSON envelope
// with a file's metadata and a bounded structural outline whose positions
// are LINE:HASH strings, so an agent can cite and edit a declaration without
// reading the file.
//
// Parsers, one package each below this one, all filling the model of
// outline (Entry, Result; Lines maps their byte offsets onto the
// project's rows, so no parser counts lines itself): golang (go/parser),
// jsonfile (encoding/json's token stream), markdown (a one-pass CommonMark
// block scanner and CommonMark's inline rules, front matter by
// go.yaml.in/yaml/v3), python and jsts (JavaScript, TypeScript, TSX): hand
// tokenizers over the lexical rules of scan, each giving the entries
// tree-sitter's grammars gave (the package used them through cgo until
// the worker's start-up cost asked for one static Go binary); their
// tests hold the cases and say where they differ, and jsts, python
// and markdown check a corpus of real files against their expected
// outlines (testdata/corpus, -update to rewrite). This package dispatches
// by language (outline.go), runs the parsers only in the outline process
// (see below) and renders the envelope (run.go).
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
