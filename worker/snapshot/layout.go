package snapshot

// ThreadDirPrefix starts every thread directory's name below the runtime
// root.
const ThreadDirPrefix = "hpatch-"

// ScriptsDirName is the retained-script directory inside a thread
// directory.
const ScriptsDirName = "scripts"

// ThreadDirName is the name of thread's directory below the runtime root.
// The thread id must pass ident.Thread first.
func ThreadDirName(thread string) string { return ThreadDirPrefix + thread }
