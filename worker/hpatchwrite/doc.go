// Package hpatchwrite is the private command hpatch-write, the write half
// of a workspace hpatch edit. The router resolves the edit when the model's
// call streams through (package workspace) and sends a carrier that runs
//
//	hpatch-write --expect DIGEST --cwd DIR --root DIR [--root DIR…] [--after CALL:STATE…] EDIT
//
// through tools.exec_command, so the write happens inside Codex's sandbox
// and under its approvals. The command resolves EDIT again against the
// files as they are now, with the cwd and roots the router took from the
// request; a baseline other than the router's (another DIGEST) means a
// file changed in between, and nothing is written. --after names the
// earlier hpatch calls of the same response the router resolved this one
// on top of (workspace.Pending), each with the state of the edit's files
// before that call: files found in that state mean that call did not
// write, and the refusal names it instead of an outside change.
// Otherwise it writes (workspace.Plan.Write: each file checked once more
// just before) and prints the report the router predicted. Every failure is one line on
// stderr, `hpatch: ` and the writer's own words, and no report.
package hpatchwrite
