// Package regfile owns the one way hpatch-router opens a file whose name
// came from the model: only a regular file, looked at before the open so a
// device or FIFO is never opened (opening some devices has effects), looked
// at again through the open file so a swap in between is refused, and
// opened with OpenFlags so the open never blocks and never acquires a
// terminal.
//
// The worker's private commands open names in the whole file system (OS,
// following symlinks, as a shell would); package workspace opens them
// inside a workspace root, and package retain a retained script inside its
// thread's scripts directory, where a symlink is refused rather than
// followed.
// All go through Open, which is why the rule is a leaf (standard library
// only) that each imports.
//
// It also owns how a file is created without ever replacing one: written
// whole under a new temporary name (WriteNew), then given its name by a
// hard link, which fails on any existing entry (LinkNew). The retained
// scripts (package retain) and the workspace edits (package workspace)
// both create files this way.
package regfile
