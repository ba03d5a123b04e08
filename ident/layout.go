package ident

// The names of a thread's storage below the runtime root, which the
// worker runtime creates, the retained-script store writes in and the
// helper resolves: one rule, here, next to the ids they are made of.

// ThreadDirPrefix starts every thread directory's name below the runtime
// root.
const ThreadDirPrefix = "hpatch-"

// ScriptsDirName is the retained-script directory inside a thread
// directory.
const ScriptsDirName = "scripts"

// ThreadDirName is the name of thread's directory below the runtime root.
// The thread id must pass Thread first.
func ThreadDirName(thread string) string { return ThreadDirPrefix + thread }
