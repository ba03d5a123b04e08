// Package outline owns the outline model every inspect_file parser
// produces: Entry (one declaration, heading, front matter key or JSON
// pointer, with its rows), Result (a file's entries and whether it parsed
// completely) and Lines, which maps a parser's byte offsets onto the
// project's rows (rows.All: LF, CRLF and lone CR end a line), so no
// parser counts lines itself. The language packages beside it fill the
// model; worker/inspect renders it.
package outline
