package snapshot

import "io/fs"

// ThreadDirPrefix starts every thread directory's name below the runtime
// root.
const ThreadDirPrefix = "hpatch-"

// ScriptsDirName is the retained-script directory inside a thread
// directory.
const ScriptsDirName = "scripts"

// ThreadDirName is the name of thread's directory below the runtime root.
// The thread id must pass ident.Thread first.
func ThreadDirName(thread string) string { return ThreadDirPrefix + thread }

// ThreadSeen is one look at a thread's storage: what lstat found for
// <root>/hpatch-<thread> and then, inside that very directory, for
// scripts/. The worker runtime takes it when PrepareThread rechecks a
// thread, and the router hands it to the retained-script store's retain
// for the same shell call, which applies its own checks to it instead of
// taking the same two lstats again a moment later. The zero value is no
// look: the store looks itself.
type ThreadSeen struct {
	Thread       string
	Dir, Scripts fs.FileInfo
}
