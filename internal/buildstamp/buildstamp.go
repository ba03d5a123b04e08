package buildstamp

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
)

// Stamp is one build's identity as far as a shell call is concerned.
type Stamp struct {
	Version  string // what `--version` names: the -X main.version value, or "dev"
	Commit   string // hex revision (short or full); "" when unknown
	Dirty    bool   // built from a tree with uncommitted changes
	Protocol int    // snapshot.Protocol of the build
}

// Of is the stamp of the running binary: version is its main.version.
func Of(version string, protocol int) Stamp {
	s := Stamp{Version: version, Protocol: protocol}
	s.Commit, s.Dirty = commitOfVersion(version)
	if s.Commit != "" {
		return s
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				s.Commit = kv.Value
			case "vcs.modified":
				s.Dirty = kv.Value == "true"
			}
		}
	}
	return s
}

// commitOfVersion reads the commit out of `git describe --always
// --dirty` output: "30813ed", "30813ed-dirty", "v1.2-3-g30813ed[-dirty]".
// A tag alone ("v1.2") or "dev" names no commit.
func commitOfVersion(v string) (commit string, dirty bool) {
	v, dirty = strings.CutSuffix(v, "-dirty")
	if i := strings.LastIndex(v, "-g"); i >= 0 && isHex(v[i+2:]) {
		return v[i+2:], dirty
	}
	if isHex(v) {
		return v, dirty
	}
	return "", false
}

func isHex(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// linePrefix starts every Line: a helper that prints something else is
// not this project's, or predates `shell --version`.
const linePrefix = "shell (hpatch-router) "

// Line is what `shell --version` prints (one line, no newline):
//
//	shell (hpatch-router) VERSION commit COMMIT[+dirty] protocol N
//
// with COMMIT "unknown" when the build names none.
func (s Stamp) Line() string {
	c := s.Commit
	if c == "" {
		c = "unknown"
	}
	if s.Dirty {
		c += "+dirty"
	}
	return fmt.Sprintf("%s%s commit %s protocol %d", linePrefix, s.Version, c, s.Protocol)
}

// Parse reads a Line back.
func Parse(line string) (Stamp, error) {
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), linePrefix)
	if !ok {
		return Stamp{}, errors.New("not the version line of an hpatch-router helper")
	}
	f := strings.Fields(rest)
	if len(f) != 5 || f[1] != "commit" || f[3] != "protocol" {
		return Stamp{}, fmt.Errorf("malformed helper version line %q", clip(line))
	}
	p, err := strconv.Atoi(f[4])
	if err != nil || p < 0 {
		return Stamp{}, fmt.Errorf("malformed helper protocol %q", clip(f[4]))
	}
	s := Stamp{Version: f[0], Protocol: p}
	c, dirty := strings.CutSuffix(f[2], "+dirty")
	if c != "unknown" {
		if !isHex(c) {
			return Stamp{}, fmt.Errorf("malformed helper commit %q", clip(f[2]))
		}
		s.Commit = c
	}
	s.Dirty = dirty
	return s, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Mismatch says why a helper of stamp h does not fit a router of stamp r
// ("" when it does): a different protocol, or a different commit when
// both name one. A short and a full revision of one commit agree. When
// either commit is unknown only the protocol decides, since it is what a
// shell call depends on.
func Mismatch(r, h Stamp) string {
	if r.Protocol != h.Protocol {
		return fmt.Sprintf("helper protocol %d, router protocol %d", h.Protocol, r.Protocol)
	}
	if r.Commit == "" || h.Commit == "" {
		return ""
	}
	if !strings.HasPrefix(r.Commit, h.Commit) && !strings.HasPrefix(h.Commit, r.Commit) {
		return fmt.Sprintf("helper of commit %s, router of commit %s", h.Commit, r.Commit)
	}
	return ""
}
