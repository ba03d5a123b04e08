// Command argvstub stands in for programs in package shebang's semantic
// tests: it records the argv it was started with, as netstrings, in the
// file $HPATCH_SHEBANG_STUB_RECORD. Started as `shell`, it first decodes
// its argv with oneline.ParseArgs, the helper's own decoding, so the
// record is the argv the worker would run; under any other name (the
// direct-command stub) it records the argv as given. A decoding error is
// recorded as "error: …" with exit status 2.
package main
