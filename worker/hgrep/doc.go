// Package hgrep owns the private command hgrep: ripgrep's matching, context
// and file-selection arguments, run through the real `rg --json --no-config`
// over the files' bytes as they are (--encoding=none: no byte order mark
// stripped, nothing transcoded), printed as verified rows
// `"PATH":LINE:HASH TEXT`.
//
// It owns three things:
//   - the argument classifier (options.go): every ripgrep 13 option is passed
//     through, ignored with one warning (presentation options that cannot
//     yield rows), or rejected (options that change what a line is);
//   - the reading of rg's JSON Lines stream and the verification of each
//     reported line against the file on disk (rows.go): row numbers follow
//     the project's row rule (LF, CRLF and lone CR end a line) even where
//     ripgrep counts only LF, and a line rg reports that is not byte-for-byte
//     a line of the file (binary conversion, a file changed meanwhile) is
//     dropped and counted in one warning (files over 32 MiB are checked
//     with reads at each hit's offset instead of being read whole).
//
// It prints each verified row as `"PATH":LINE:HASH TEXT` with package
// rows' QuotePath and AppendRow, the format hsymbol prints too, and finds
// rg with privcmd's Env.LookPath, on the evaluation's PATH.
//
// Lines that are not valid UTF-8 are not printed (hread, hpatch and the model
// cannot use them); they are counted in one warning line. env.Limits bound
// it (privcmd.Bounds): Output bytes of rows, a row never cut, one line on
// stderr saying the output was truncated and the status
// privcmd.ExitTruncated (3; no match is 0 with no rows); Time for the whole search, after
// which rg is killed, the rows found so far printed and the status is 124;
// Memory for rg's heap (RLIMIT_DATA; rg runs with --no-mmap, and running
// out is named); Input for a file read whole to renumber rows. Named paths
// that are not files or directories (a FIFO, /dev/zero) are refused before
// rg starts (limit_linux.go and bounds.go), rg messages longer than any
// printable row are skipped unread, and a file's hits past the output bound
// stop the search.
package hgrep
