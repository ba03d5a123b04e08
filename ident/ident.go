package ident

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBytes is the longest id accepted, in bytes.
const MaxBytes = 128

// Names the runtime uses itself, which ids must not collide with.
const (
	// RuntimeLink is the thread directory's link to the live launcher.
	RuntimeLink = ".runtime"
	// TempPrefix starts the retained-script store's temporary files.
	TempPrefix = ".hpatch-tmp-"
	// SnapshotPrefix starts the part after "hpatch-" of a snapshot
	// directory's name.
	SnapshotPrefix = "snapshot-"
)

// Kind names what an id is for; it starts every Error message.
type Kind string

// The two kinds of ids.
const (
	ThreadKind   Kind = "thread id"
	ArtifactKind Kind = "artifact id"
)

// Error is why a string cannot be an id of Kind. Its message is one line
// that says what is wrong, without a package or tool prefix.
type Error struct {
	Kind   Kind
	ID     string
	Reason string
}

func (e *Error) Error() string {
	if e.ID == "" {
		return string(e.Kind) + " " + e.Reason
	}
	return string(e.Kind) + " " + quote(e.ID) + " " + e.Reason
}

// Thread reports why id cannot be a thread id, or nil.
func Thread(id string) error {
	if reason := component(id); reason != "" {
		return &Error{ThreadKind, id, reason}
	}
	if strings.HasPrefix(id, SnapshotPrefix) {
		return &Error{ThreadKind, id, "starts with " + quote(SnapshotPrefix) + ", which names the router's snapshot directories"}
	}
	return nil
}

// Artifact reports why id cannot be an artifact id, or nil.
func Artifact(id string) error {
	if reason := component(id); reason != "" {
		return &Error{ArtifactKind, id, reason}
	}
	switch {
	case id == RuntimeLink:
		return &Error{ArtifactKind, id, "is reserved for the runtime launcher link"}
	case strings.HasPrefix(id, TempPrefix):
		return &Error{ArtifactKind, id, "starts with " + quote(TempPrefix) + ", which names the store's temporary files"}
	}
	return nil
}

// component is the shared filename-component rule: "" when id passes,
// else the reason it does not.
func component(id string) string {
	switch {
	case id == "":
		return "is empty"
	case len(id) > MaxBytes:
		return "is " + strconv.Itoa(len(id)) + " bytes long; at most " + strconv.Itoa(MaxBytes) + " are allowed"
	case id == "." || id == "..":
		return "is not a filename"
	case !utf8.ValidString(id):
		return "is not valid UTF-8"
	}
	for _, r := range id {
		switch {
		case r == '/' || r == '\\':
			return "contains a path separator"
		case r == 0:
			return "contains a NUL byte"
		case unicode.IsSpace(r):
			return "contains a blank or line break"
		case unicode.IsControl(r):
			return "contains a control character"
		}
	}
	return ""
}

// quote quotes s for a one-line message, shortened to 64 bytes.
func quote(s string) string {
	const max = 64
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}
