// Package snapshot is the on-disk contract between the router's runtime
// (package worker), the fixed `shell` helper and the worker, and the one
// owner of the runtime's names:
//
//	<root>/hpatch-<thread>/              ThreadDirName (ident.Thread ids)
//	<root>/hpatch-<thread>/.runtime      link to a launcher (ident.RuntimeLink)
//	<root>/hpatch-<thread>/scripts/      retained scripts (ScriptsDirName)
//	<root>/hpatch-snapshot-<digest>/     DirName: manifest and launcher
//
// It holds the snapshot manifest and its digest, and Locate, the one
// verification path from a thread id to the launcher executable. Package
// retain imports the names; the ids themselves are checked by package
// ident, whose reserved names (.runtime, snapshot-) keep ids from colliding
// with these entries.
//
// The names and the manifest are portable. Locate, like the worker it
// authenticates and the helper that calls it, is Linux-only (build tag
// linux): the runtime it verifies only exists on Linux. It is a leaf with
// small imports so the helper stays tiny and fast.
package snapshot
