package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"hpatch-router/ident"
)

// Names of runtime entries and the environment the helper reads.
const (
	// DirPrefix starts the name of a router-owned snapshot directory; the
	// rest of the name is the manifest digest. It is the directory a thread
	// id starting with ident.SnapshotPrefix would name, which is why
	// ident.Thread refuses those ids.
	DirPrefix = ident.ThreadDirPrefix + ident.SnapshotPrefix
	// LauncherName is the snapshot's symlink to the router executable.
	LauncherName = "launcher"
	// ManifestName is the snapshot's manifest file.
	ManifestName = "manifest"
	// RootEnv names the runtime root; it must be absolute (see Root).
	RootEnv = "HPATCH_RUNTIME_DIR"
	// ThreadEnv is the thread id Codex gives every command it runs.
	ThreadEnv = "CODEX_THREAD_ID"

	manifestMagic = "hpatch-router-snapshot 2"
	// manifestMagicV1 has no owner; such a manifest (left by an older
	// router) still parses, so reclaim can remove it, with Owner -1.
	manifestMagicV1 = "hpatch-router-snapshot 1"
	digestLen       = 32 // hex digits
	maxManifest     = 4096
)

// Manifest describes the launcher target: the router executable by path,
// content hash and file identity, and the router process that owns the
// snapshot (pid and start time, to tell a live owner from a stale one).
type Manifest struct {
	Exe     string // absolute path, symlinks resolved
	SHA256  string // hex content hash of Exe when the router started
	Dev     uint64
	Ino     uint64
	Size    int64
	MtimeNs int64
	// Owner and CtimeNs are Exe's owner uid and change time when the
	// router registered it, outside any sandbox; inside Codex's sandbox
	// they tell a root-owned file (see ownerProblem). Owner is -1 when not
	// recorded (a version 1 manifest).
	Owner   int
	CtimeNs int64
	PID     int
	Start   uint64 // process start time in clock ticks since boot
}

// Encode renders the manifest; Digest of the result names the snapshot.
func (m Manifest) Encode() []byte {
	var b strings.Builder
	b.WriteString(manifestMagic + "\n")
	b.WriteString("exe " + m.Exe + "\n")
	b.WriteString("sha256 " + m.SHA256 + "\n")
	b.WriteString("dev " + strconv.FormatUint(m.Dev, 10) + "\n")
	b.WriteString("ino " + strconv.FormatUint(m.Ino, 10) + "\n")
	b.WriteString("size " + strconv.FormatInt(m.Size, 10) + "\n")
	b.WriteString("mtime_ns " + strconv.FormatInt(m.MtimeNs, 10) + "\n")
	b.WriteString("owner " + strconv.Itoa(m.Owner) + "\n")
	b.WriteString("ctime_ns " + strconv.FormatInt(m.CtimeNs, 10) + "\n")
	b.WriteString("pid " + strconv.Itoa(m.PID) + "\n")
	b.WriteString("start " + strconv.FormatUint(m.Start, 10) + "\n")
	return []byte(b.String())
}

// Parse reads a manifest written by Encode.
func Parse(data []byte) (Manifest, error) {
	m := Manifest{Owner: -1}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 2 || (lines[0] != manifestMagic && lines[0] != manifestMagicV1) || lines[len(lines)-1] != "" {
		return m, errors.New("not an hpatch-router snapshot manifest")
	}
	keys := 10
	if lines[0] == manifestMagicV1 {
		keys = 8
	}
	seen := 0
	for _, line := range lines[1 : len(lines)-1] {
		key, val, ok := strings.Cut(line, " ")
		if !ok {
			return m, errors.New("malformed manifest line")
		}
		var err error
		switch key {
		case "exe":
			m.Exe = val
		case "sha256":
			m.SHA256 = val
		case "dev":
			m.Dev, err = strconv.ParseUint(val, 10, 64)
		case "ino":
			m.Ino, err = strconv.ParseUint(val, 10, 64)
		case "size":
			m.Size, err = strconv.ParseInt(val, 10, 64)
		case "mtime_ns":
			m.MtimeNs, err = strconv.ParseInt(val, 10, 64)
		case "owner", "ctime_ns":
			if keys == 8 {
				return m, errors.New("unknown manifest key " + strconv.Quote(key))
			}
			if key == "owner" {
				m.Owner, err = strconv.Atoi(val)
			} else {
				m.CtimeNs, err = strconv.ParseInt(val, 10, 64)
			}
		case "pid":
			m.PID, err = strconv.Atoi(val)
		case "start":
			m.Start, err = strconv.ParseUint(val, 10, 64)
		default:
			return m, errors.New("unknown manifest key " + strconv.Quote(key))
		}
		if err != nil {
			return m, errors.New("bad manifest value for " + key)
		}
		seen++
	}
	if seen != keys || !strings.HasPrefix(m.Exe, "/") {
		return m, errors.New("incomplete manifest")
	}
	return m, nil
}

// Digest is the snapshot digest of an encoded manifest: the first 16 bytes
// of its SHA-256 as 32 lowercase hex digits.
func Digest(manifest []byte) string {
	sum := sha256.Sum256(manifest)
	return hex.EncodeToString(sum[:digestLen/2])
}

// DirName is the snapshot directory name for a digest.
func DirName(digest string) string { return DirPrefix + digest }

// DigestOf returns the digest carried by a snapshot directory name, or ""
// when name is not one.
func DigestOf(name string) string {
	d, ok := strings.CutPrefix(name, DirPrefix)
	if !ok || len(d) != digestLen {
		return ""
	}
	for i := 0; i < len(d); i++ {
		c := d[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return ""
		}
	}
	return d
}

// LinkTarget is the relative target of a thread's .runtime link: the
// launcher of a snapshot in the same runtime root.
func LinkTarget(digest string) string {
	return "../" + DirName(digest) + "/" + LauncherName
}

// DigestOfLink returns the digest named by a .runtime link target, or ""
// when the target is not a registered launcher's form.
func DigestOfLink(target string) string {
	rest, ok := strings.CutPrefix(target, "../")
	if !ok {
		return ""
	}
	dir, ok := strings.CutSuffix(rest, "/"+LauncherName)
	if !ok {
		return ""
	}
	return DigestOf(dir)
}
