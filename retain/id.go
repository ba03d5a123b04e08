package retain

import (
	"fmt"
	"strings"
)

// Reserved is the thread-directory entry that links to the live launcher; it
// can never name an artifact.
const Reserved = ".runtime"

// ValidID reports why id cannot be a thread or artifact id, or nil when it
// is a single non-empty filename component: not "." or "..", no '/', '\\' or
// NUL. Callers that name artifacts must also refuse Reserved.
func ValidID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("id is empty")
	case id == "." || id == "..":
		return fmt.Errorf("id %q is not a filename", id)
	case strings.ContainsAny(id, "/\\\x00"):
		return fmt.Errorf("id %q contains a path separator or NUL", id)
	}
	return nil
}

// ThreadDirName is the name of a thread's runtime directory below the
// runtime root. The thread id must pass ValidID first.
func ThreadDirName(thread string) string { return "hpatch-" + thread }

// ScriptsDirName is the retained-script directory below a thread directory.
const ScriptsDirName = "scripts"
