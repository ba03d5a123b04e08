// Package hread is the private command `hread`: the rows of one UTF-8
// regular file as `LINE:HASH TEXT` (package rows), optionally a
// START:END range, from a workspace path or a retained script
// `@shell/<id>` of the thread. It runs in-process inside the worker's
// shell evaluation.
//
//	hread PATH [START:END]
//	hread @shell/<id> [START:END]
//
// START:END is 1-based and inclusive; START: runs to the end, :END starts
// at row 1. Output is bounded (Limits.Output bytes) and a row is never cut.
// Stdout carries rows only, so `hread f > copy` and `hread f | …` get data
// and nothing else; notices and diagnostics go to stderr. Input is bounded
// too: only regular files are read (a FIFO, device or socket is refused
// without being opened), at most Limits.Input bytes, as the snapshot of the
// size they had when opened; rows are counted without being held, so
// memory is the file plus one page of output.
//
// Exit status: 0 when every requested row was printed; 1 when the file
// cannot be read as rows (including a single row longer than the limit);
// 2 for usage errors; privcmd.ExitTruncated (3) when the limit cut the
// output after a complete row — stderr then says where to continue, with
// the file name quoted so the command can be pasted back (privcmd.Word). A
// distinct status, not 0, because a cut read is not the file:
// `hread f > copy && use copy` and `set -e` scripts must not carry on as if
// it were. 124 when the time limit stopped the read.
package hread
