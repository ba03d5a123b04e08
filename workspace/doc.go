// Package workspace resolves hpatch edits of workspace files and writes
// them. It owns the workspace confinement rule: which paths an edit may
// name, and how they are read and written.
//
// # Where a path may point
//
// An edit names files relative to the turn's cwd or by absolute paths;
// both come from the request the call answers (Env: the cwd and the
// workspace roots of Codex's environment_context), never from the
// process's own cwd. A path is cleaned lexically and must then lie strictly
// inside one workspace root (the innermost when roots nest), so no `..`
// leaves a root. Every access goes through an *os.Root opened at that
// root: a symlink anywhere on the way that leads out of the root is
// refused by the Root itself, and the file itself must not be a symlink
// (replacing it would replace the link). Files are read without blocking,
// regular and UTF-8 only, at most MaxFileBytes.
//
// # Resolution
//
// Resolve reads every named file once and resolves the whole edit against
// those bytes (hpatch.Section.Apply for the rows). Sections are grouped by
// the file they reach, found after opening (device and inode) or, for a
// name that does not exist yet, by its directory entry (the parent
// directory's device and inode and the base name): `a` and `./a`, two hard
// links, and two paths through a symlinked directory are one file, whose
// edits apply to one baseline in order (the report heads it "a (also
// b)"). A file may be created, moved or removed under one name only, so
// such an edit naming it twice is refused naming both. Merging appends,
// so grouping is linear in the number of sections. `new` needs a name that
// does not exist, `mv` a destination that does not exist in the same
// root. The result is a Plan: per file the current bytes, the exact new
// bytes (line endings and a missing final line ending kept; retain's
// rules) and the report the model sees on success. Any stale hash,
// missing file, overlap or COUNT mismatch is one *hpatch.Error line,
// before anything is written.
//
// Pending.Resolve resolves a call on top of the earlier calls of the same
// response (Pending.Add): Codex runs them in order, so a later call sees
// the files as the earlier ones will leave them. Its plan's After names
// each earlier call that changes what it names, with the state before
// that call (StateDigest), so a write that finds that state says which
// earlier call did not write instead of blaming an outside change.
//
// # Writing
//
// Plan.Write is the worker carrier's half: Codex runs it inside its own
// sandbox, so the sandbox and approvals decide whether it may write. It
// writes every new version to a temporary file beside its target, checks
// each target's bytes once more against the plan's baseline, gives each
// copy the owner, group, extended attributes and mode bits (setuid,
// setgid and sticky included) of the file it replaces, and only then
// renames the temporary files into place (new files and moves are linked,
// so an existing name is never replaced). A copy that cannot keep them (an
// unprivileged writer cannot give a file to another owner) refuses the
// edit before anything is put in place. A file with other hard links is
// written in place instead (its own inode, truncated to the new length),
// so every name keeps seeing one file. A write the sandbox refuses
// returns the system's own error, and nothing is half-written.
//
// # The write window
//
// Replacing a file by rename is atomic for readers, but not for writers:
// a process that appends to the file between the last check and the
// rename appends to the old inode, which the rename then drops, so the
// append is lost (a process that holds the file open keeps writing to the
// old inode after the rename). Write narrows the window to the time
// between one lstat and one rename: right before each rename it compares
// the file, its size and modification time with the last check, and
// refuses (restoring what it already put in place) when they changed. It
// cannot close it: nothing locks a file against another process here. A
// rewrite in place has the same window between that look and its write.
//
// Why not apply_patch: Codex 0.169's apply_patch always ends a file with a
// newline and follows symlinks out of the workspace (FACTS §10), so it
// cannot keep a file byte-exact nor be the confinement; see DESIGN §8 and
// README "Workspace edits".
package workspace
