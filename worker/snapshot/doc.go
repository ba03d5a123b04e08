// Package snapshot is the on-disk contract between the router's runtime
// (package worker), the fixed `shell` helper and the worker, and the one
// owner of the runtime's names:
//
//	<root>/hpatch-<thread>/              ident.ThreadDirName (ident.Thread ids)
//	<root>/hpatch-<thread>/.runtime      link to a launcher (ident.RuntimeLink)
//	<root>/hpatch-<thread>/scripts/      retained scripts (ident.ScriptsDirName)
//	<root>/hpatch-snapshot-<digest>/     DirName: manifest and launcher
//	<root>/router.lock                   LockName: the serving router's flock, pid and address
//
// It holds the runtime root rule (Root: $HPATCH_RUNTIME_DIR, else
// $XDG_RUNTIME_DIR/hpatch-router, else hpatch-router-<uid> in the temp
// dir; CheckRoot: a private directory of the user), the snapshot manifest
// and its digest, Locate, the one verification path from a thread id to
// the launcher executable, the launcher target check before exec
// (OpenLauncher, ExecutableProblem; inside Codex's sandbox, where root's
// files show the overflow uid, "root" is what the manifest recorded for
// that very file: owner.go), the body handoff from the helper to
// the worker on a sealed memfd (HandOver, TakeBody), and the root's lock
// (LockRoot, RootHolder: one router per root). The names of a
// thread's directory and its scripts/ are package ident's, next to the ids
// they are made of, whose reserved names (.runtime, snapshot-) keep ids
// from colliding with these entries.
//
// The names, the manifest and ErrNeedsLinux are portable. The rest, like the worker it
// authenticates and the helper that calls it, is Linux-only (build tag
// linux): the runtime it verifies only exists on Linux. It is a leaf with
// small imports so the helper stays tiny and fast.
package snapshot
