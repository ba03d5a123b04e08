package retain

import (
	"fmt"
	"strings"
)

// RefPrefix starts every retained-script reference.
const RefPrefix = "@shell/"

// ScriptDirective starts a rerun line: `#!script=@shell/<id>` as the sole
// content of a shell input reruns that retained script.
const ScriptDirective = "#!script="

// tempPrefix names the store's temporary files inside scripts/. Artifact ids
// may not start with it, so a temporary file is never mistaken for one.
const tempPrefix = ".hpatch-tmp-"

// maxNameBytes is the longest filename component the store accepts
// (NAME_MAX on Linux).
const maxNameBytes = 255

// ValidArtifactID reports why id cannot name a retained artifact: it must
// pass ValidID, be at most 255 bytes, not be Reserved and not start with
// the store's temporary-file prefix.
func ValidArtifactID(id string) error {
	if err := ValidID(id); err != nil {
		return fmt.Errorf("artifact %w", err)
	}
	switch {
	case id == Reserved:
		return fmt.Errorf("artifact id %q is reserved for the runtime launcher", id)
	case len(id) > maxNameBytes:
		return fmt.Errorf("artifact id is %d bytes; at most %d are allowed", len(id), maxNameBytes)
	case strings.HasPrefix(id, tempPrefix):
		return fmt.Errorf("artifact id %q uses the store's temporary prefix %q", id, tempPrefix)
	}
	return nil
}

// FormatRef returns the reference "@shell/<id>" for an artifact id.
func FormatRef(id string) string { return RefPrefix + id }

// ParseRef returns the artifact id of a reference "@shell/<id>". It is
// strict: no surrounding space, exactly one filename component after the
// prefix, never Reserved.
func ParseRef(ref string) (string, error) {
	id, ok := strings.CutPrefix(ref, RefPrefix)
	if !ok {
		return "", fmt.Errorf("reference %q does not start with %s; use @shell/<id> from a retained call's script_ref", clip(ref), RefPrefix)
	}
	if err := ValidArtifactID(id); err != nil {
		return "", fmt.Errorf("reference %q is not a retained script: %v", clip(ref), err)
	}
	return id, nil
}

// SoleScriptRef reports whether content is a rerun request: one line (an
// optional final LF, CRLF or CR allowed) that starts with `#!script=`. It
// returns the text after the directive with surrounding spaces and tabs
// removed; the caller validates it with ParseRef, so a malformed reference
// is diagnosed instead of running as a shell comment.
func SoleScriptRef(content string) (ref string, ok bool) {
	line := strings.TrimSuffix(content, "\n")
	line = strings.TrimSuffix(line, "\r")
	if strings.ContainsAny(line, "\r\n") {
		return "", false
	}
	rest, ok := strings.CutPrefix(line, ScriptDirective)
	if !ok {
		return "", false
	}
	return strings.Trim(rest, " \t"), true
}

// clip shortens s for a one-line diagnostic and quotes nothing itself.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
