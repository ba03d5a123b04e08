// Package hgrep owns the private command hgrep: ripgrep's matching, context
// and file-selection arguments, run through the real `rg --json --no-config`,
// printed as verified rows `"PATH":LINE:HASH TEXT`.
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
//     with reads at each hit's offset instead of being read whole);
//   - the row format shared by the private commands that print workspace
//     rows (FormatRow) and the PATH lookup they use (LookPath).
//
// Lines that are not valid UTF-8 are not printed (hread, hpatch and the model
// cannot use them); they are counted in one warning line. Output is bounded by
// MaxOutput bytes of rows; a row is never cut, and one line on stderr says
// that the output was truncated.
package hgrep
