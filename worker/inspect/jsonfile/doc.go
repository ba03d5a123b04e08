// Package jsonfile owns inspect_file's JSON outline: one entry per value
// down to MaxPointerDepth, named by its JSON Pointer (RFC 6901) with its
// value type and line span, read from encoding/json's token stream, so a
// deeper value costs no stack and no value is ever shown.
package jsonfile
