// Package regfile owns the one way hpatch-router opens a file whose name
// came from the model: only a regular file, looked at before the open so a
// device or FIFO is never opened (opening some devices has effects), looked
// at again through the open file so a swap in between is refused, and
// opened with OpenFlags so the open never blocks and never acquires a
// terminal.
//
// The worker's private commands open names in the whole file system (OS,
// following symlinks, as a shell would); package workspace opens them
// inside a workspace root, where a symlink is refused rather than followed.
// Both go through Open, which is why the rule is a leaf (standard library
// only) that both import.
package regfile
