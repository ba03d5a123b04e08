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
// those bytes (retain.Section.Apply for the rows): sections that name one
// file merge into one baseline; `new` needs a path that does not exist,
// `mv` a destination that does not exist in the same root, and no two
// sections may remove, create or move onto one file. The result is a Plan:
// per file the current bytes, the exact new bytes (line endings and a
// missing final line ending kept; retain's rules) and the report the model
// sees on success. Any stale hash, missing file, overlap or COUNT mismatch
// is one *retain.PatchError line, before anything is written.
//
// # Writing
//
// Plan.Write is the worker carrier's half: Codex runs it inside its own
// sandbox, so the sandbox and approvals decide whether it may write. It
// writes every new version to a temporary file beside its target, checks
// each target's bytes once more against the plan's baseline, and only
// then renames the temporary files into place (new files and moves are
// linked, so an existing name is never replaced). A write the sandbox
// refuses returns the system's own error, and nothing is half-written.
//
// Why not apply_patch: Codex 0.169's apply_patch always ends a file with a
// newline and follows symlinks out of the workspace (FACTS §10), so it
// cannot keep a file byte-exact nor be the confinement; see DESIGN §8 and
// README "Workspace edits".
package workspace
